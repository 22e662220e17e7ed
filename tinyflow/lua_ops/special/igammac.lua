-- igammac: y = igammac(x[1], x[2]), numpy broadcasting (kernels.igammac)
return function(x, y, kwarg)
  local igammac, first, second, out = kernels.igammac, x[1], x[2], y[1]
  return function() igammac(out, first, second) end
end
