-- logical_and: y = logical_and(a, b) (numpy broadcasting)
return function(x, y, kwarg)
  local logical_and, a, b, out = torch.logical_and, x[1], x[2], y[1]
  return function() logical_and(out, a, b) end
end
