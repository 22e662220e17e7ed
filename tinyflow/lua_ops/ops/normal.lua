-- normal: y ~ N(kwarg.mean, kwarg.stdev ^ 2)
return function(x, y, kwarg)
  local normal, out = torch.normal, y[1]
  local mean, stdev = kwarg.mean or 0, kwarg.stdev or 1
  return function() normal(out, mean, stdev) end
end
