-- sparse_centered_rmsprop_update: TensorFlow's SparseApplyCenteredRMSProp:
-- centered_rmsprop_update's rule on the rows
-- of the state (x[1..4], also y[1..4]) that indices (x[6]) names, from the slices values
-- (x[5]), a row named twice summed first (kernels.sparse_update); lr is kwarg.lr or,
-- without it, the scalar tensor x[7]
return function(x, y, kwarg)
  local attrs = {rho = kwarg.rho, momentum = kwarg.momentum, epsilon = kwarg.epsilon}
  local state = {y[1], y[2], y[3], y[4]}
  local step = kernels.sparse_update("centered_rmsprop", state, x[5], x[6], kwarg.lr or x[7],
                                     attrs)
  return function() step() end
end
