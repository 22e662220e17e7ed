-- sparse_proximal_sgd_update: TensorFlow's SparseApplyProximalGradientDescent:
-- proximal_sgd_update's rule on the rows
-- of the state (x[1], also y[1]) that indices (x[3]) names, from the slices values
-- (x[2]), a row named twice summed first (kernels.sparse_update); lr is kwarg.lr or,
-- without it, the scalar tensor x[4]
return function(x, y, kwarg)
  local attrs = {l1 = kwarg.l1, l2 = kwarg.l2}
  local step = kernels.sparse_update("proximal_sgd", {y[1]}, x[2], x[3], kwarg.lr or x[4],
                                     attrs)
  return function() step() end
end
