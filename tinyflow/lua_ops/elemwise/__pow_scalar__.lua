-- __pow_scalar__: y = x ^ scalar
return function(x, y, kwarg)
  local pow, a, s, out = torch.pow, x[1], kwarg.scalar, y[1]
  return function() pow(out, a, s) end
end
