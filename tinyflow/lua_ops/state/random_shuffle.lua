-- random_shuffle: y = x[1] with its slices along dim 1 in a random order, drawn from the
-- node's stream (kwarg.generator; nil: torch's global one)
return function(x, y, kwarg)
  local src, out = x[1], y[1]
  local copy = torch.copy
  if torch.dim(src) == 0 or torch.size(src, 1) <= 1 or torch.numel(src) == 0 then
    return function() copy(out, src) end
  end
  local n = torch.size(src, 1)
  local column = torch.narrow(torch.view(src, {n, torch.numel(src) / n}), 2, 1, 1)
  local order = torch.view(torch.index_like(column), {n})
  local randperm, index_select, gen = torch.randperm, torch.index_select, kwarg.generator
  return function()
    randperm(order, gen)
    index_select(out, src, 1, order)
  end
end
