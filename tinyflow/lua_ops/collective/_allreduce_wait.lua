-- _allreduce_wait: wait for the reduction _allreduce_start started on the bucket x[1], then
-- give each gradient its part (x[2..n+1] are read for their shapes), divided by the number
-- of ranks with kwarg.average
return function(x, y, kwarg)
  local wait, div, copy, flat, label = kernels.all_reduce_wait, torch.div, torch.copy, x[1],
    kwarg.label
  local n, scale = #y, kwarg.average and kernels.world_size() or 1
  local parts = (n == 1) and {flat} or kernels.bucket_views(flat, y)
  if n == 1 and torch.same_memory(flat, y[1]) and scale == 1 then
    return function() wait(flat, label) end
  end
  return function()
    wait(flat, label)
    for i = 1, n do
      if scale == 1 then copy(y[i], parts[i]) else div(y[i], parts[i], scale) end
    end
  end
end
