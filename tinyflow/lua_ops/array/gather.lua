-- gather: y = the slices of params x[1] along kwarg.axis at indices x[2] (any shape; y has
-- the indices' axes in place of that axis)
return function(x, y, kwarg)
  local params, indices = x[1], x[2]
  local dim, count = torch.dim_of(kwarg.axis or 0), torch.numel(indices)
  local sizes = torch.shape(params)
  local at = dim > 0 and dim or #sizes + dim + 1
  local size = sizes[at]
  sizes[at] = count
  local out, flat = torch.view(y[1], sizes), torch.view(indices, {count})
  local index_select = kernels.gpu_checked(torch.index_select, flat, 4, size, "indices")
  return function() index_select(out, params, dim, flat) end
end
