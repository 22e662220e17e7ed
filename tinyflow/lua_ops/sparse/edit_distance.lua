-- edit_distance: y[1] = the edit distances of hypothesis (indices x[1], values x[2], dense
-- shape x[3]) and truth (x[4], x[5], x[6]), float32 (kwarg.normalize: over the truth's length),
-- of the larger dense shape's leading dims (TShapeAtRunTime: kernels.edit_distance sizes
-- y[1], checked with kwarg.check_fits first)
return function(x, y, kwarg)
  local edit_distance, out, fits, normalize = kernels.edit_distance, y[1], kwarg.check_fits,
    kwarg.normalize
  local hypothesis, truth = {x[1], x[2], x[3]}, {x[4], x[5], x[6]}
  return function() edit_distance(out, hypothesis, truth, normalize, fits) end
end
