-- argmin: y = index (0-based) of the smallest x along kwarg.axis, in y's dtype (int64 or int32)
return function(x, y, kwarg)
  local argmin, src, out = torch.argmin, x[1], y[1]
  local dim = torch.dim_of(kwarg.axis or 0)
  local index = torch.dtype(out) ~= "int64" and torch.index_like(out) or nil
  return function() argmin(out, src, dim, index) end
end
