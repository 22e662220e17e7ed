-- erf: y = erf(x)
return function(x, y, kwarg)
  local erf, a, out = torch.erf, x[1], y[1]
  return function() erf(out, a) end
end
