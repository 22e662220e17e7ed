-- normal: y ~ N(kwarg.mean, kwarg.stdev ^ 2), new draws every step; a seeded node draws from
-- kwarg.generator, its session's stream for it (tinyflow/random_ops.py), else from torch's
-- global generator (kwarg.generator is nil)
return function(x, y, kwarg)
  local normal, out = torch.normal, y[1]
  local mean, stdev, generator = kwarg.mean or 0, kwarg.stdev or 1, kwarg.generator
  return function() normal(out, mean, stdev, generator) end
end
