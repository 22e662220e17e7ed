-- greater_equal: y = greater_equal(a, b) (numpy broadcasting)
return function(x, y, kwarg)
  local ge, a, b, out = torch.ge, x[1], x[2], y[1]
  return function() ge(out, a, b) end
end
