-- floor: y = floor(x)
return function(x, y, kwarg)
  local floor, a, out = torch.floor, x[1], y[1]
  return function() floor(out, a) end
end
