-- expm1: y = expm1(x)
return function(x, y, kwarg)
  local expm1, a, out = torch.expm1, x[1], y[1]
  return function() expm1(out, a) end
end
