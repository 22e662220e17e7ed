-- non_max_suppression: y[1] = the kept boxes' indices, y[2] = their scores (both padded with
-- zeros to kwarg.max_output_size), y[3] = how many were kept (kernels.non_max_suppression)
return function(x, y, kwarg)
  local suppress, boxes, scores = kernels.non_max_suppression, x[1], x[2]
  local indices, kept_scores, count = y[1], y[2], y[3]
  local limit, threshold, floor = kwarg.max_output_size, kwarg.threshold, kwarg.score_threshold
  local overlaps = kwarg.overlaps or false
  return function()
    suppress(indices, kept_scores, count, boxes, scores, limit, threshold, floor, overlaps)
  end
end
