-- sparse_adam_update: TensorFlow 1.15's sparse Adam of var, m, v (x[1..3], also y[1..3])
-- from the slices values (x[4]) at indices (x[5]), with the scalars beta1_power, beta2_power
-- (x[6], x[7]): every row of m and v decays, the summed slices are added at their rows, every
-- row of var moves (kernels.sparse_adam); lr is kwarg.lr or, without it, the scalar x[8]
return function(x, y, kwarg)
  local step = kernels.sparse_adam(y[1], y[2], y[3], x[4], x[5], x[6], x[7], kwarg.lr or x[8],
                                   kwarg.beta1, kwarg.beta2, kwarg.epsilon)
  return function() step() end
end
