-- _random_gamma_grad: y = d sample / d alpha of Gamma(alpha = x[1], 1) samples x[2]
return function(x, y, kwarg)
  local gamma_grad, out, alpha, sample = kernels.gamma_grad, y[1], x[1], x[2]
  return function() gamma_grad(out, alpha, sample) end
end
