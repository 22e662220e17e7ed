-- sgd_update: var (x[1], also y[1]) <- var - lr * grad (x[2]); lr is kwarg.lr or, without it,
-- the scalar tensor x[3]
return function(x, y, kwarg)
  local var, grad = y[1], x[2]
  if kwarg.lr then
    local add, scale = torch.add, -kwarg.lr
    return function() add(var, var, scale, grad) end
  end
  local cmul, csub, lr, step = torch.cmul, torch.csub, x[3], torch.empty_like(grad)
  return function()
    cmul(step, grad, lr)
    csub(var, var, step)
  end
end
