-- top_k: y[1] = the kwarg.k largest entries of each row of x[1] along the last axis, in
-- descending order (the lower index first among equal ones, as TensorFlow), y[2] their indices
return function(x, y, kwarg)
  local src, values, indices, k = x[1], y[1], y[2], kwarg.k
  local top_k, buffers = kernels.top_k, kernels.top_k_buffers(x[1])
  return function() top_k(values, indices, src, k, buffers) end
end
