-- __rsub_scalar__: y = scalar - x
return function(x, y, kwarg)
  local rsub, a, s, out = torch.rsub, x[1], kwarg.scalar, y[1]
  return function() rsub(out, a, s) end
end
