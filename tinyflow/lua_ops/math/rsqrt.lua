-- rsqrt: y = rsqrt(x)
return function(x, y, kwarg)
  local rsqrt, a, out = torch.rsqrt, x[1], y[1]
  return function() rsqrt(out, a) end
end
