-- in_top_k: y (bool) = whether targets x[2] are among the kwarg.k largest predictions x[1]
-- (batch, classes), TensorFlow's rule (see kernels.in_top_k)
return function(x, y, kwarg)
  local predictions, targets, out, k = x[1], x[2], y[1], kwarg.k
  local buffers, in_top_k = kernels.in_top_k_buffers(predictions), kernels.in_top_k
  return function() in_top_k(out, predictions, targets, k, buffers) end
end
