-- __sub_scalar__: y = x - scalar
return function(x, y, kwarg)
  local add, a, s, out = torch.add, x[1], kwarg.scalar, y[1]
  return function() add(out, a, -s) end
end
