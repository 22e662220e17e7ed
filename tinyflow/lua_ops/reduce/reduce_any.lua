-- reduce_any: y = any of x over kwarg.axis (nil: all axes); y's rank tells whether axes are kept
return function(x, y, kwarg)
  local any, src, out, dims = torch.any, x[1], y[1], torch.dims_of(kwarg.axis)
  return function() any(out, src, dims) end
end
