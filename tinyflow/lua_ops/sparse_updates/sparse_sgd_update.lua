-- sparse_sgd_update: TensorFlow's sparse gradient descent, scatter_sub(var, indices, lr *
-- values): var (x[1], also y[1]) loses lr times each slice of values (x[2]) at its row of
-- indices (x[3]), a row named twice both (kernels.sparse_scatter_sub); lr is kwarg.lr or,
-- without it, the scalar tensor x[4]
return function(x, y, kwarg)
  local step = kernels.sparse_scatter_sub(y[1], x[2], x[3], kwarg.lr or x[4])
  return function() step() end
end
