-- polygamma: y = polygamma(x[1], x[2]), numpy broadcasting (kernels.polygamma)
return function(x, y, kwarg)
  local polygamma, first, second, out = kernels.polygamma, x[1], x[2], y[1]
  return function() polygamma(out, first, second) end
end
