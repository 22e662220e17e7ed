-- _collapse_sum_like: y = g summed over the axes along which y's shape was broadcast to g's
return function(x, y, kwarg)
  local g, out, copy = x[1], y[1], torch.copy
  local gs, ys = torch.shape(g), torch.shape(out)
  local lead = #gs - #ys
  local padded, dims = {}, {}
  for i = 1, #gs do
    padded[i] = i > lead and ys[i - lead] or 1
    if padded[i] == 1 and gs[i] ~= 1 then dims[#dims + 1] = i end
  end
  local target = torch.view(out, padded)
  if #dims == 0 then
    -- the plan put y in g's memory (FInplaceOption): already there
    if torch.same_memory(target, g) then return function() end end
    return function() copy(target, g) end
  end
  local sum = torch.sum
  return function() sum(target, g, dims) end
end
