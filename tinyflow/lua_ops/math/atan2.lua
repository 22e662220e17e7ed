-- atan2: y = atan2(x[1], x[2]), broadcasting
return function(x, y, kwarg)
  local atan2, a, b, out = torch.atan2, x[1], x[2], y[1]
  return function() atan2(out, a, b) end
end
