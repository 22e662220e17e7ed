-- normal: y ~ N(kwarg.mean, kwarg.stdev ^ 2), new draws every step; with kwarg.seed (and
-- kwarg.seed2, TensorFlow's pair) from a generator of this node's own, else torch's global one
return function(x, y, kwarg)
  local normal, out = torch.normal, y[1]
  local mean, stdev = kwarg.mean or 0, kwarg.stdev or 1
  local generator = torch.generator(out, kwarg.seed, kwarg.seed2)
  return function() normal(out, mean, stdev, generator) end
end
