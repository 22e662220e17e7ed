-- softmax: y = softmax(x) along kwarg.axis (default -1)
return function(x, y, kwarg)
  local softmax, src, out = torch.softmax, x[1], y[1]
  local dim = torch.dim_of(kwarg.axis or -1)
  return function() softmax(out, src, dim) end
end
