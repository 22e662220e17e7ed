-- _gather_nd_backward: y = zeros of x[3]'s shape with g = x[1] added where gather_nd read
return function(x, y, kwarg)
  local out, g, indices, batch_dims = y[1], x[1], x[2], kwarg.batch_dims or 0
  local backward = kernels.gather_nd_backward
  return function() backward(out, g, indices, batch_dims) end
end
