-- _gather_backward: y = zeros of params' shape (x[3]) with g = x[1] added at the slices gather
-- read along kwarg.axis (an index read twice gets both)
return function(x, y, kwarg)
  local out, indices = y[1], x[2]
  local dim, count = torch.dim_of(kwarg.axis or 0), torch.numel(indices)
  local sizes = torch.shape(out)
  local at = dim > 0 and dim or #sizes + dim + 1
  local size = sizes[at]
  sizes[at] = count
  local g, flat = torch.view(x[1], sizes), torch.view(indices, {count})
  local zero = torch.zero
  local index_add = kernels.gpu_checked(torch.index_add, flat, 3, size, "indices")
  return function()
    zero(out)
    index_add(out, dim, flat, g)
  end
end
