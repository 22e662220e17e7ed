-- reduce_prod: y = prod of x over kwarg.axis (nil: all axes); y's rank tells whether axes are kept
return function(x, y, kwarg)
  local prod, src, out, dims = torch.prod, x[1], y[1], torch.dims_of(kwarg.axis)
  return function() prod(out, src, dims) end
end
