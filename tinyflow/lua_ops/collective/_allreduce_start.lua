-- _allreduce_start: pack the gradients x[1..n] into the bucket y[1] (nothing to pack when the
-- plan reduces a lone gradient in place) and start summing it over every rank, not waiting:
-- _allreduce_wait, reading y[1], waits
return function(x, y, kwarg)
  local copy, start, flat, label = torch.copy, kernels.all_reduce_start, y[1], kwarg.label
  local fingerprint = kernels.collective_check("allreduce", label, flat, x)
  local n = #x
  if n == 1 and torch.same_memory(flat, x[1]) then
    return function() start(flat, label, fingerprint) end
  end
  local parts = kernels.bucket_views(flat, x)
  return function()
    for i = 1, n do copy(parts[i], x[i]) end
    start(flat, label, fingerprint)
  end
end
