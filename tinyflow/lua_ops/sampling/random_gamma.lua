-- random_gamma: y ~ Gamma(alpha = x[1], 1), kwarg.shape draws per alpha (y's leading dims), new
-- draws every step; a seeded node draws from kwarg.generator, its session's stream for it
return function(x, y, kwarg)
  local gamma, out, alpha, generator = kernels.gamma, y[1], x[1], kwarg.generator
  return function() gamma(out, alpha, generator) end
end
