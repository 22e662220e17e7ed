-- ftrl_update: one step of TensorFlow's FTRL-proximal (ApplyFtrl, ApplyFtrlV2 with
-- kwarg.l2_shrinkage) of var, accum, linear (x[1..3], also y[1..3]) against grad (x[4])
-- (kernels.ftrl: the formulas); lr is kwarg.lr or, without it, the scalar tensor x[5]
return function(x, y, kwarg)
  local step = kernels.ftrl(y[1], y[2], y[3], x[4], kwarg.lr or x[5], kwarg.l1, kwarg.l2,
                            kwarg.l2_shrinkage, kwarg.lr_power)
  return function() step() end
end
