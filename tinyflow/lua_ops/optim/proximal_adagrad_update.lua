-- proximal_adagrad_update: one step of TensorFlow's ApplyProximalAdagrad of var, accum (x[1..2],
-- also y[1..2]) against grad (x[3]), L1 and L2 as kwarg.l1, kwarg.l2 (kernels.proximal_adagrad:
-- the formula); lr is kwarg.lr or, without it, the scalar tensor x[4]
return function(x, y, kwarg)
  local step = kernels.proximal_adagrad(y[1], y[2], x[3], kwarg.lr or x[4], kwarg.l1, kwarg.l2)
  return function() step() end
end
