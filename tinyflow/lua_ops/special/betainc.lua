-- betainc: y = I_x(a, b) of a = x[1], b = x[2], x = x[3], numpy broadcasting (kernels.betainc)
return function(x, y, kwarg)
  local betainc, a, b, at, out = kernels.betainc, x[1], x[2], x[3], y[1]
  return function() betainc(out, a, b, at) end
end
