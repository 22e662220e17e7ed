-- reduce_sum: y = sum of x over kwarg.axis (nil: all axes); y's rank tells whether axes are kept
return function(x, y, kwarg)
  local sum, src, out, dims = torch.sum, x[1], y[1], torch.dims_of(kwarg.axis)
  local ones = torch.sum_buffers(src, dims)  -- a channels-last bias gradient: a matrix product
  return function() sum(out, src, dims, ones) end
end
