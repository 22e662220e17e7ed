-- scatter_add: the rows x[2] (indices, any shape) of the variable x[1] += x[3] (updates of
-- shape indices.shape + the row shape, or a scalar); y[1] is that variable's memory.  A
-- repeated index gets each of its updates added.
return function(x, y, kwarg)
  local var, indices, updates = y[1], x[2], x[3]
  local count = torch.numel(indices)
  local sizes = torch.shape(var)
  sizes[1] = count
  local flat = torch.view(indices, {count})
  local rows = torch.dim(updates) == 0 and torch.expand(updates, sizes)
    or torch.view(updates, sizes)
  local index_add = torch.index_add
  return function() index_add(var, 1, flat, rows) end
end
