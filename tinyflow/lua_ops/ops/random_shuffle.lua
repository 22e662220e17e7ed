-- random_shuffle: y = x[1] with its slices along dim 1 in a random order, drawn from the
-- node's stream (kwarg.generator; nil: torch's global one).  Each row i gets a random key
-- made distinct by i (key * n + i); its rank among the keys is where it goes.
return function(x, y, kwarg)
  local src, out = x[1], y[1]
  local copy = torch.copy
  if torch.dim(src) == 0 or torch.size(src, 1) <= 1 or torch.numel(src) == 0 then
    return function() copy(out, src) end
  end
  local n = torch.size(src, 1)
  local column = torch.narrow(torch.view(src, {n, torch.numel(src) / n}), 2, 1, 1)
  local keys = torch.view(torch.index_like(column), {n})
  local rank, order = torch.view(torch.index_like(column), {n}), torch.ramp(keys, n)
  local source = torch.view(torch.index_like(column), {n})
  local row, col = torch.view(keys, {1, n}), torch.view(keys, {n, 1})
  local below = torch.bool_like(torch.expand(row, {n, n}))
  local uniform, mul, add, lt, sum = torch.uniform, torch.mul, torch.add, torch.lt, torch.sum
  local zero, index_add, index_select = torch.zero, torch.index_add, torch.index_select
  local gen = kwarg.generator
  return function()
    uniform(keys, 0, 2 ^ 40, gen)
    mul(keys, keys, n)
    add(keys, keys, order)
    lt(below, row, col)          -- below[i][j]: key j < key i
    sum(rank, below, 2)          -- row i goes to rank[i]
    zero(source)
    index_add(source, 1, rank, order)  -- source[rank[i]] = i
    index_select(out, src, 1, source)
  end
end
