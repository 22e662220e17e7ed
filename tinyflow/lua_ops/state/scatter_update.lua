-- scatter_update: the rows x[2] (indices, any shape) of the variable x[1] <- x[3] (updates
-- of shape indices.shape + the row shape, or a scalar); y[1] is that variable's memory.  A
-- repeated index gets one of its updates (TensorFlow leaves which one undefined).
return function(x, y, kwarg)
  local var = y[1]
  local flat, rows = kernels.scatter_rows(var, x[2], x[3])
  local index = torch.index_like(flat)  -- int64, as index_copy takes
  local copy = torch.copy
  local index_copy = kernels.gpu_checked(torch.index_copy, index, 3, torch.size(var, 1),
    "indices")
  return function()
    copy(index, flat)
    index_copy(var, 1, index, rows)
  end
end
