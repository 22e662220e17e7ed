-- self_adjoint_eig: y[1] = the eigenvalues (ascending) of each self-adjoint matrix x[1] (its
-- lower triangle read); with kwarg.compute_v (default) y[2] = the eigenvectors, as columns
return function(x, y, kwarg)
  local eig, e, v, a = kernels.eig, y[1], y[2], x[1]
  return function() eig(e, v, a) end
end
