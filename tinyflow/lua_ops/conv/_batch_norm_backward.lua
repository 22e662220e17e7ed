-- _batch_norm_backward: gradients of batch_norm's x, gamma and beta (y[1..3]) from g, x, gamma
-- and the saved mean and 1 / std (x[1..5])
return function(x, y, kwarg)
  local backward, eps = kernels.batch_norm_backward, kwarg.eps or 1e-5
  local g, data, gamma, mean, invstd = x[1], x[2], x[3], x[4], x[5]
  local grad_data, grad_gamma, grad_beta = y[1], y[2], y[3]
  return function()
    backward(grad_data, grad_gamma, grad_beta, g, data, gamma, mean, invstd, eps)
  end
end
