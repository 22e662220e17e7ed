-- _segment_gather: y = row x[2][i] of x[1] for each i (0 for a negative id), divided by the
-- id's count (kwarg.scale 'mean') or its square root ('sqrt_n'); kernels.segment_gather checks
return function(x, y, kwarg)
  local gather, out, rows, ids, scale = kernels.segment_gather, y[1], x[1], x[2], kwarg.scale
  return function() gather(out, rows, ids, scale) end
end
