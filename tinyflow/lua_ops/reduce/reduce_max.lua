-- reduce_max: y = max of x over kwarg.axis (nil: all axes); y's rank tells whether axes are kept
return function(x, y, kwarg)
  local max, src, out, dims = torch.max, x[1], y[1], torch.dims_of(kwarg.axis)
  return function() max(out, src, dims) end
end
