-- _select_index_backward: y = zeros of x[3]'s shape with g = x[1] at index x[2] along axis
return function(x, y, kwarg)
  local out, g, index, axis = y[1], x[1], x[2], kwarg.axis
  local backward = kernels.select_index_backward
  return function() backward(out, g, index, axis) end
end
