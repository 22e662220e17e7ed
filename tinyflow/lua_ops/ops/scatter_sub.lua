-- scatter_sub: the rows x[2] (indices, any shape) of the variable x[1] -= x[3] (updates of
-- shape indices.shape + the row shape, or a scalar); y[1] is that variable's memory.  A
-- repeated index gets each of its updates taken away.
return function(x, y, kwarg)
  local var, indices, updates = y[1], x[2], x[3]
  local count = torch.numel(indices)
  local sizes = torch.shape(var)
  sizes[1] = count
  local flat = torch.view(indices, {count})
  local rows = torch.dim(updates) == 0 and torch.expand(updates, sizes)
    or torch.view(updates, sizes)
  local negated = torch.empty(var, sizes)  -- -updates, added (index_add has no alpha)
  local neg, index_add = torch.neg, torch.index_add
  return function()
    neg(negated, rows)
    index_add(var, 1, flat, negated)
  end
end
