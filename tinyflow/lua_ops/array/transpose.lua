-- transpose: y = x with its axes permuted (kwarg.perm, 0-based; nil reverses them)
return function(x, y, kwarg)
  local rank, perm = torch.dim(x[1]), kwarg.perm and torch.dims_of(kwarg.perm)
  if perm == nil then
    perm = {}
    for i = 1, rank do perm[i] = rank + 1 - i end
  end
  local copy, out, src = torch.copy, y[1], torch.permute(x[1], perm)
  return function() copy(out, src) end
end
