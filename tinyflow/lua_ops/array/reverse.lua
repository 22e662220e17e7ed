-- reverse: y = x with the order of its elements reversed along each of kwarg.axis
return function(x, y, kwarg)
  local flip, src, out, dims = torch.flip, x[1], y[1], torch.dims_of(kwarg.axis)
  return function() flip(out, src, dims) end
end
