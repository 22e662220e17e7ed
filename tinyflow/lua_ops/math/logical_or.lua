-- logical_or: y = logical_or(a, b) (numpy broadcasting)
return function(x, y, kwarg)
  local logical_or, a, b, out = torch.logical_or, x[1], x[2], y[1]
  return function() logical_or(out, a, b) end
end
