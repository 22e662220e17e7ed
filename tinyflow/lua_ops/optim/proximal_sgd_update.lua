-- proximal_sgd_update: one step of TensorFlow's ApplyProximalGradientDescent of var (x[1], also
-- y[1]) against grad (x[2]), L1 and L2 as kwarg.l1, kwarg.l2 (kernels.proximal_sgd: the
-- formula); lr is kwarg.lr or, without it, the scalar tensor x[3]
return function(x, y, kwarg)
  local step = kernels.proximal_sgd(y[1], x[2], kwarg.lr or x[3], kwarg.l1, kwarg.l2)
  return function() step() end
end
