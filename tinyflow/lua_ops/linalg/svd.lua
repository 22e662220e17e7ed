-- svd: y[1] = the singular values of each matrix x[1]; with kwarg.compute_uv (default) y[2],
-- y[3] = u, v with x[1] = u diag(s) v^H (square with kwarg.full_matrices)
return function(x, y, kwarg)
  local svd, s, u, v, a, full = kernels.svd, y[1], y[2], y[3], x[1], kwarg.full_matrices
  return function() svd(s, u, v, a, full) end
end
