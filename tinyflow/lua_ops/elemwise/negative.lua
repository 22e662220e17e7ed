-- negative: y = -x
return function(x, y, kwarg)
  local neg, a, out = torch.neg, x[1], y[1]
  return function() neg(out, a) end
end
