-- unsorted_segment_mean: y = per segment id x[2] (< kwarg.num_segments; negative: dropped), the
-- mean of data x[1]'s slices (kernels.unsorted_segment checks the ids)
return function(x, y, kwarg)
  local reduce, out, data, ids = kernels.unsorted_segment, y[1], x[1], x[2]
  return function() reduce(out, data, ids, "mean") end
end
