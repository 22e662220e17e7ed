-- argmax: y = index (0-based, as a float) of the largest x along kwarg.axis
return function(x, y, kwarg)
  local argmax, src, out = torch.argmax, x[1], y[1]
  local dim, index = torch.dim_of(kwarg.axis or 0), torch.index_like(out)
  return function() argmax(out, src, dim, index) end
end
