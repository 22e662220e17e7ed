-- combined_non_max_suppression: y[1..3] = the boxes, scores and classes kept per image (all
-- classes by score, zeros after), y[4] = how many per image (kernels.combined_non_max_suppression)
return function(x, y, kwarg)
  local combine, boxes, scores = kernels.combined_non_max_suppression, x[1], x[2]
  local per_class, total = kwarg.max_output_size_per_class, kwarg.max_total_size
  local threshold, floor, clip = kwarg.threshold, kwarg.score_threshold, kwarg.clip_boxes
  return function()
    combine(y[1], y[2], y[3], y[4], boxes, scores, per_class, total, threshold, floor, clip)
  end
end
