-- _tensor_array_grow_backward: y[1] = the first rows of g = x[1] (as many as x[2], read for
-- its shape, has), rows x[3] (written by the grow) zero.
return function(x, y, kwarg)
  local kept_rows, g, index, out = kernels.kept_rows, x[1], x[3], y[1]
  return function() kept_rows(out, g, index) end
end
