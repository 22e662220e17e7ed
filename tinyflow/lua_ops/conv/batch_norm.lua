-- batch_norm: y[1] = gamma * (x - mean) / sqrt(var + eps) + beta over axis 1 with the batch's
-- statistics; y[2] = mean and y[3] = 1 / sqrt(var + eps), saved for the gradient
return function(x, y, kwarg)
  local batch_norm, data, gamma, beta = kernels.batch_norm, x[1], x[2], x[3]
  local out, mean, invstd, eps = y[1], y[2], y[3], kwarg.eps or 1e-5
  return function() batch_norm(out, mean, invstd, data, gamma, beta, eps) end
end
