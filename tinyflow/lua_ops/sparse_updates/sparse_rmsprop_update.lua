-- sparse_rmsprop_update: TensorFlow's SparseApplyRMSProp: rmsprop_update's rule on the rows
-- of the state (x[1..3], also y[1..3]) that indices (x[5]) names, from the slices values
-- (x[4]), a row named twice summed first (kernels.sparse_update); lr is kwarg.lr or,
-- without it, the scalar tensor x[6]
return function(x, y, kwarg)
  local attrs = {rho = kwarg.rho, momentum = kwarg.momentum, epsilon = kwarg.epsilon}
  local step = kernels.sparse_update("rmsprop", {y[1], y[2], y[3]}, x[4], x[5], kwarg.lr or x[6],
                                     attrs)
  return function() step() end
end
