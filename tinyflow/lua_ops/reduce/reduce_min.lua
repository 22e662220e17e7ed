-- reduce_min: y = min of x over kwarg.axis (nil: all axes); y's rank tells whether axes are kept
return function(x, y, kwarg)
  local min, src, out, dims = torch.min, x[1], y[1], torch.dims_of(kwarg.axis)
  return function() min(out, src, dims) end
end
