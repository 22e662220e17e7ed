-- equal: y = (a == b) (numpy broadcasting; bool y)
return function(x, y, kwarg)
  local eq, a, b, out = torch.eq, x[1], x[2], y[1]
  return function() eq(out, a, b) end
end
