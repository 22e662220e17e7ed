-- sparse_momentum_update: TensorFlow's SparseApplyMomentum: momentum_update's rule on the rows
-- of the state (x[1..2], also y[1..2]) that indices (x[4]) names, from the slices values
-- (x[3]), a row named twice summed first (kernels.sparse_update); lr is kwarg.lr or,
-- without it, the scalar tensor x[5]
return function(x, y, kwarg)
  local attrs = {momentum = kwarg.momentum, nesterov = kwarg.nesterov or false}
  local step = kernels.sparse_update("momentum", {y[1], y[2]}, x[3], x[4], kwarg.lr or x[5],
                                     attrs)
  return function() step() end
end
