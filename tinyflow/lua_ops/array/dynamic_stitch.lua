-- dynamic_stitch: y[1][indices[m][i]] = data[m][i] (x holds the indices, then the data), the
-- last writer winning, max index + 1 rows.  Its shape is known once it ran (TShapeAtRunTime):
-- y[1] is a tensor of its own, which kernels.stitch gives new storage, checked with
-- kwarg.check_fits.
return function(x, y, kwarg)
  local stitch, out, check = kernels.stitch, y[1], kwarg.check_fits
  return function() stitch(out, x, check) end
end
