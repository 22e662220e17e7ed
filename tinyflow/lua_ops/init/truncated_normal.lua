-- truncated_normal: y ~ N(kwarg.mean, kwarg.stdev ^ 2) cut at two deviations from the mean
-- (TensorFlow's); the generator as in normal.lua
return function(x, y, kwarg)
  local truncated_normal, out = torch.truncated_normal, y[1]
  local mean, stdev, generator = kwarg.mean or 0, kwarg.stdev or 1, kwarg.generator
  return function() truncated_normal(out, mean, stdev, generator) end
end
