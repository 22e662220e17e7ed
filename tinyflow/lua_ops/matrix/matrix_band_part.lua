-- matrix_band_part: y = x[1] with, in each matrix of its last two axes, the elements off the band
-- kwarg.num_lower below and kwarg.num_upper above the diagonal zeroed (negative: all kept)
return function(x, y, kwarg)
  local band, out, src, lower, upper = kernels.band_part, y[1], x[1], kwarg.num_lower,
    kwarg.num_upper
  return function() band(out, src, lower, upper) end
end
