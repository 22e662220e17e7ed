-- segment_sum: y = per sorted segment id x[2], the sum of data x[1]'s rows; ids[-1] + 1 rows
-- (TShapeAtRunTime: kernels.sorted_segment resizes y[1], checked with kwarg.check_fits)
return function(x, y, kwarg)
  local reduce, out, data, ids, fits = kernels.sorted_segment, y[1], x[1], x[2], kwarg.check_fits
  return function() reduce(out, data, ids, "sum", fits) end
end
