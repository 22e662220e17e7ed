-- one_hot: y = kwarg.on_value where y's position along the new axis equals the index x[1],
-- kwarg.off_value elsewhere (an index outside [0, depth) matches no position)
return function(x, y, kwarg)
  local out = y[1]
  local sizes, ramp_sizes = torch.shape(out), {}
  local axis = kwarg.axis or -1
  local d = axis == -1 and #sizes or axis + 1
  for i = 1, #sizes do ramp_sizes[i] = i == d and sizes[i] or 1 end
  local ramp = torch.view(torch.ramp(x[1], sizes[d]), ramp_sizes)
  sizes[d] = 1
  local ids, mask = torch.view(x[1], sizes), torch.bool_like(out)
  local on, off = kwarg.on_value or 1, kwarg.off_value or 0
  local eq, fill, masked_fill = torch.eq, torch.fill, torch.masked_fill
  return function()
    eq(mask, ids, ramp)
    fill(out, off)
    masked_fill(out, mask, on)
  end
end
