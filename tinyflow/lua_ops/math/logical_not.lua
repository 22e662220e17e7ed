-- logical_not: y = logical_not(x)
return function(x, y, kwarg)
  local logical_not, a, out = torch.logical_not, x[1], y[1]
  return function() logical_not(out, a) end
end
