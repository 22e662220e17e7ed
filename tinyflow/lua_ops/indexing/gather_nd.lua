-- gather_nd: y = params x[1] at the coordinate vectors of indices x[2] (kwarg.batch_dims)
return function(x, y, kwarg)
  local out, params, indices, batch_dims = y[1], x[1], x[2], kwarg.batch_dims or 0
  local gather_nd = kernels.gather_nd
  return function() gather_nd(out, params, indices, batch_dims) end
end
