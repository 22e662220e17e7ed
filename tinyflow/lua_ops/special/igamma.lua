-- igamma: y = igamma(x[1], x[2]), numpy broadcasting (kernels.igamma)
return function(x, y, kwarg)
  local igamma, first, second, out = kernels.igamma, x[1], x[2], y[1]
  return function() igamma(out, first, second) end
end
