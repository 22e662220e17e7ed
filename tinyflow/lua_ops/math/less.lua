-- less: y = less(a, b) (numpy broadcasting)
return function(x, y, kwarg)
  local lt, a, b, out = torch.lt, x[1], x[2], y[1]
  return function() lt(out, a, b) end
end
