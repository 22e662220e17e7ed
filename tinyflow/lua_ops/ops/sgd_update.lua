-- sgd_update: var (x[1], also y[1]) <- var - kwarg.lr * grad (x[2])
return function(x, y, kwarg)
  local add, var, grad, scale = torch.add, y[1], x[2], -kwarg.lr
  return function() add(var, var, scale, grad) end
end
