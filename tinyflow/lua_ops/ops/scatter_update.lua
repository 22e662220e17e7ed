-- scatter_update: the rows x[2] (indices, any shape) of the variable x[1] <- x[3] (updates
-- of shape indices.shape + the row shape, or a scalar); y[1] is that variable's memory.
-- The rows hit are zeroed, then the updates added into them: exact for distinct indices
-- (TensorFlow leaves the result of a repeated index undefined; here its updates add up).
return function(x, y, kwarg)
  local var, indices, updates = y[1], x[2], x[3]
  local count, n = torch.numel(indices), torch.size(var, 1)
  local sizes = torch.shape(var)
  sizes[1] = count
  local flat = torch.view(indices, {count})
  local rows = torch.dim(updates) == 0 and torch.expand(updates, sizes)
    or torch.view(updates, sizes)
  local hits, ones = torch.empty(var, {n}), torch.empty(var, {count})
  torch.fill(ones, 1)
  local hit = torch.bool_like(hits)
  local mask_sizes = {n}
  for i = 2, torch.dim(var) do mask_sizes[i] = 1 end
  local row_hit = torch.view(hit, mask_sizes)
  local zero, index_add, gt, masked_fill = torch.zero, torch.index_add, torch.gt,
    torch.masked_fill
  return function()
    zero(hits)
    index_add(hits, 1, flat, ones)
    gt(hit, hits, 0)
    masked_fill(var, row_hit, 0)
    index_add(var, 1, flat, rows)
  end
end
