-- sparse_to_dense: y[1] = default x[4] with values x[3] written (kwarg.accumulate: added) at
-- the coordinates indices x[1], of the shape the value of x[2] gives (TShapeAtRunTime:
-- kernels.to_dense sizes y[1], checked with kwarg.check_fits first)
return function(x, y, kwarg)
  local to_dense, out, fits = kernels.to_dense, y[1], kwarg.check_fits
  local indices, shape, values, default = x[1], x[2], x[3], x[4]
  local validate, accumulate = kwarg.validate_indices, kwarg.accumulate
  return function() to_dense(out, indices, shape, values, default, validate, accumulate, fits) end
end
