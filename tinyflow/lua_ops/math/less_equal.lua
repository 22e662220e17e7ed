-- less_equal: y = less_equal(a, b) (numpy broadcasting)
return function(x, y, kwarg)
  local le, a, b, out = torch.le, x[1], x[2], y[1]
  return function() le(out, a, b) end
end
