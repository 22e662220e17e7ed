-- __div_scalar__: y = x / scalar
return function(x, y, kwarg)
  local div, a, s, out = torch.div, x[1], kwarg.scalar, y[1]
  return function() div(out, a, s) end
end
