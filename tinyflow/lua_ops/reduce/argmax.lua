-- argmax: y = index (0-based) of the largest x along kwarg.axis, in y's dtype (int64 or int32)
return function(x, y, kwarg)
  local argmax, src, out = torch.argmax, x[1], y[1]
  local dim = torch.dim_of(kwarg.axis or 0)
  local index = torch.dtype(out) ~= "int64" and torch.index_like(out) or nil
  return function() argmax(out, src, dim, index) end
end
