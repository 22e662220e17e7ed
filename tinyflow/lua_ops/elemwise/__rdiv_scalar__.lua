-- __rdiv_scalar__: y = scalar / x
return function(x, y, kwarg)
  local rdiv, a, s, out = torch.rdiv, x[1], kwarg.scalar, y[1]
  return function() rdiv(out, a, s) end
end
