-- dropout: y[2] = mask, 1 / keep_prob where U(0, 1) < keep_prob (x[2], a scalar) else 0, drawn
-- anew every step from kwarg.generator as in normal.lua (TensorFlow keeps where U >= rate =
-- 1 - keep_prob); y[1] = x * mask, in one call.
return function(x, y, kwarg)
  local dropout, data, keep_prob, out, mask = kernels.dropout, x[1], x[2], y[1], y[2]
  local generator = kwarg.generator
  return function() dropout(out, mask, data, keep_prob, generator) end
end
