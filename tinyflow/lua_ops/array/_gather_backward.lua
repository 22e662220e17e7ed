-- _gather_backward: y = zeros of params' shape (x[3]) with g = x[1] added at the slices gather
-- read along kwarg.axis (an index read twice gets both)
return function(x, y, kwarg)
  local out, indices = y[1], x[2]
  local dim, count = torch.dim_of(kwarg.axis or 0), torch.numel(indices)
  local sizes = torch.shape(out)
  sizes[dim > 0 and dim or #sizes + dim + 1] = count
  local g, flat = torch.view(x[1], sizes), torch.view(indices, {count})
  local zero, index_add = torch.zero, torch.index_add
  return function()
    zero(out)
    index_add(out, dim, flat, g)
  end
end
