-- momentum_update: accum (x[2]) <- momentum * accum + grad (x[3]); var (x[1]) <- var - lr * accum,
-- or var - lr * (grad + momentum * accum) with kwarg.nesterov.  lr is kwarg.lr or, without it,
-- the scalar tensor x[4]
return function(x, y, kwarg)
  local add, mul, cmul, csub = torch.add, torch.mul, torch.cmul, torch.csub
  local var, accum, grad, lr, momentum = y[1], y[2], x[3], kwarg.lr, kwarg.momentum
  if not lr then  -- a tensor learning rate: the step is scaled in a buffer, then subtracted
    local step, nesterov = torch.empty_like(grad), kwarg.nesterov
    lr = x[4]
    return function()
      mul(accum, accum, momentum)
      add(accum, accum, grad)
      if nesterov then
        add(step, grad, momentum, accum)
        cmul(step, step, lr)
      else
        cmul(step, accum, lr)
      end
      csub(var, var, step)
    end
  end
  if kwarg.nesterov then
    return function()
      mul(accum, accum, momentum)
      add(accum, accum, grad)
      add(var, var, -lr, grad)
      add(var, var, -lr * momentum, accum)
    end
  end
  return function()
    mul(accum, accum, momentum)
    add(accum, accum, grad)
    add(var, var, -lr, accum)
  end
end
