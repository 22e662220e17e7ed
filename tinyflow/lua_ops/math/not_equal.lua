-- not_equal: y = not_equal(a, b) (numpy broadcasting)
return function(x, y, kwarg)
  local ne, a, b, out = torch.ne, x[1], x[2], y[1]
  return function() ne(out, a, b) end
end
