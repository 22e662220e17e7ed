-- atan: y = atan(x)
return function(x, y, kwarg)
  local atan, a, out = torch.atan, x[1], y[1]
  return function() atan(out, a) end
end
