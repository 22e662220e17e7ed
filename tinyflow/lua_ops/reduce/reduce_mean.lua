-- reduce_mean: y = mean of x over kwarg.axis (nil: all axes); y's rank tells whether axes are kept
return function(x, y, kwarg)
  local mean, src, out, dims = torch.mean, x[1], y[1], torch.dims_of(kwarg.axis)
  return function() mean(out, src, dims) end
end
