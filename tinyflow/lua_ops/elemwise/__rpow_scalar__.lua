-- __rpow_scalar__: y = scalar ^ x
return function(x, y, kwarg)
  local pow, a, s, out = torch.pow, x[1], kwarg.scalar, y[1]
  return function() pow(out, s, a) end
end
