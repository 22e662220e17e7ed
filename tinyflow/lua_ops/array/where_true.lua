-- where_true: y[1] = the coordinates of x[1]'s true (nonzero) elements, int64 [count, rank],
-- row-major.  Its shape is known once it ran (TShapeAtRunTime): y[1] is a tensor of its own,
-- which kernels.nonzero gives new storage, checked with kwarg.check_fits.
return function(x, y, kwarg)
  local nonzero, cond, out, check = kernels.nonzero, x[1], y[1], kwarg.check_fits
  return function() nonzero(out, cond, check) end
end
