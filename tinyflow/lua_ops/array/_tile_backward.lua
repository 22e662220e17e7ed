-- _tile_backward: y = g = x[1] summed over its tiles: g viewed as (m1, d1, m2, d2, ...) summed
-- over the m axes, into y of x[2]'s shape (d1, d2, ...)
return function(x, y, kwarg)
  local out, multiples = y[1], kwarg.multiples
  local sizes = torch.shape(out)
  local wide, tile_dims = {}, {}
  for i = 1, #sizes do
    wide[2 * i - 1], wide[2 * i] = multiples[i], sizes[i]
    tile_dims[i] = 2 * i - 1
  end
  local sum, g = torch.sum, torch.view(x[1], wide)
  return function() sum(out, g, tile_dims) end
end
