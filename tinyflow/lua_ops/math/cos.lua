-- cos: y = cos(x)
return function(x, y, kwarg)
  local cos, a, out = torch.cos, x[1], y[1]
  return function() cos(out, a) end
end
