-- reduce_all: y = all of x over kwarg.axis (nil: all axes); y's rank tells whether axes are kept
return function(x, y, kwarg)
  local all, src, out, dims = torch.all, x[1], y[1], torch.dims_of(kwarg.axis)
  return function() all(out, src, dims) end
end
