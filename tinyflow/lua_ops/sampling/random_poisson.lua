-- random_poisson: y ~ Poisson(rate = x[1]), kwarg.shape draws per rate (y's leading dims), in
-- y's dtype; the generator as in random_gamma.lua
return function(x, y, kwarg)
  local poisson, out, rate, generator = kernels.poisson, y[1], x[1], kwarg.generator
  return function() poisson(out, rate, generator) end
end
