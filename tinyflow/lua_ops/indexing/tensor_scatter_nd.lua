-- tensor_scatter_nd: y = x[1] with updates x[3] written, added, subtracted or the larger or
-- smaller kept (kwarg.mode) at
-- the coordinates indices x[2]
return function(x, y, kwarg)
  local out, tensor, indices, updates, mode = y[1], x[1], x[2], x[3], kwarg.mode
  local scatter = kernels.tensor_scatter_nd
  return function() scatter(out, tensor, indices, updates, mode) end
end
