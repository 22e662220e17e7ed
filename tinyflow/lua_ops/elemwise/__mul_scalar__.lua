-- __mul_scalar__: y = x * scalar
return function(x, y, kwarg)
  local mul, a, s, out = torch.mul, x[1], kwarg.scalar, y[1]
  return function() mul(out, a, s) end
end
