-- sqrt: y = sqrt(x)
return function(x, y, kwarg)
  local sqrt, a, out = torch.sqrt, x[1], y[1]
  return function() sqrt(out, a) end
end
