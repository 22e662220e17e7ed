-- _pad_backward: y = the part of g that pad's input came from
return function(x, y, kwarg)
  local g, out = x[1], y[1]
  local dim, pad = torch.dim_of(kwarg.dim), kwarg.pad
  local start = pad < 0 and 1 - pad or 1
  local inside = torch.narrow(g, dim, start, torch.size(out, dim))
  local copy = torch.copy
  return function() copy(out, inside) end
end
