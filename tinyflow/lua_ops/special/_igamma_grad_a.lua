-- _igamma_grad_a: y = _igamma_grad_a(x[1], x[2]), numpy broadcasting (kernels.igamma_grad_a)
return function(x, y, kwarg)
  local igamma_grad_a, first, second, out = kernels.igamma_grad_a, x[1], x[2], y[1]
  return function() igamma_grad_a(out, first, second) end
end
