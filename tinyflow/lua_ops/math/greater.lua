-- greater: y = greater(a, b) (numpy broadcasting)
return function(x, y, kwarg)
  local gt, a, b, out = torch.gt, x[1], x[2], y[1]
  return function() gt(out, a, b) end
end
