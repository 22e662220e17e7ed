-- _svd_backward: y = the gradient of svd's input x[1] from those of s (x[2]) and, with
-- kwarg.compute_uv (default), of u and v (x[3], x[4]) and the outputs s, u, v (x[5..7])
return function(x, y, kwarg)
  local backward, out, full = kernels.svd_backward, y[1], kwarg.full_matrices
  local a, gs, gu, gv, s, u, v = x[1], x[2], x[3], x[4], x[5], x[6], x[7]
  return function() backward(out, a, gs, gu, gv, s, u, v, full) end
end
