-- momentum_update: accum (x[2]) <- momentum * accum + grad (x[3]); var (x[1]) <- var - lr * accum,
-- or var - lr * (grad + momentum * accum) with kwarg.nesterov
return function(x, y, kwarg)
  local add, mul, var, accum, grad = torch.add, torch.mul, y[1], y[2], x[3]
  local lr, momentum = kwarg.lr, kwarg.momentum
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
