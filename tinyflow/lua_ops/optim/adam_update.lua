-- adam_update: TensorFlow's ApplyAdam step of var, m, v (x[1..3], also y[1..3]) against grad
-- (x[4]) with the scalars beta1_power, beta2_power (x[5], x[6]) (kernels.adam_update: the
-- formulas); lr is kwarg.lr or, without it, the scalar tensor x[7]
return function(x, y, kwarg)
  local step = kernels.adam_update(y[1], y[2], y[3], x[4], x[5], x[6], kwarg.lr or x[7],
                                   kwarg.beta1, kwarg.beta2, kwarg.epsilon)
  return function() step() end
end
