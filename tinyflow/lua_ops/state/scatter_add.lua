-- scatter_add: the rows x[2] (indices, any shape) of the variable x[1] += x[3] (updates of
-- shape indices.shape + the row shape, or a scalar); y[1] is that variable's memory.  A
-- repeated index gets each of its updates added.
return function(x, y, kwarg)
  local var = y[1]
  local flat, rows = kernels.scatter_rows(var, x[2], x[3])
  local index_add = kernels.gpu_checked(torch.index_add, flat, 3, torch.size(var, 1), "indices")
  return function() index_add(var, 1, flat, rows) end
end
