-- setdiff1d: y[1] = the elements of x[1] not in x[2], in x[1]'s order; y[2] = their positions
-- in x[1]; both sized as it runs (kernels.setdiff1d, checked with kwarg.check_fits)
return function(x, y, kwarg)
  local setdiff, out, positions, fits = kernels.setdiff1d, y[1], y[2], kwarg.check_fits
  local src, remove = x[1], x[2]
  return function() setdiff(out, positions, src, remove, fits) end
end
