-- reduce_sum: y = sum of x over kwarg.axis (nil: all axes); y's rank tells whether axes are kept
return function(x, y, kwarg)
  local src, out, dims = x[1], y[1], torch.dims_of(kwarg.axis)
  local ones = kernels.sum_buffers(src, dims)  -- a channels-last bias gradient: a matrix product
  if ones ~= nil then
    local sum_by_ones = kernels.sum_by_ones
    return function() sum_by_ones(out, src, ones) end
  end
  local sum = torch.sum
  return function() sum(out, src, dims) end
end
