-- adam_update: one Adam step of var, m, v (x[1..3], also y[1..3]) against grad (x[4]) at step
-- count t (x[5]), in PyTorch's fused Adam kernel: each tensor is read and written once.  The
-- learning rate is kwarg.lr or, without it, the scalar tensor x[6] (the kernel takes either)
return function(x, y, kwarg)
  local adam, var, m, v, grad, t = kernels.adam_update, y[1], y[2], y[3], x[4], x[5]
  local lr, beta1, beta2, epsilon = kwarg.lr or x[6], kwarg.beta1, kwarg.beta2, kwarg.epsilon
  return function() adam(var, m, v, grad, t, lr, beta1, beta2, epsilon) end
end
