-- uniform: y ~ U(kwarg.low, kwarg.high), integers in [low, high) for an integer y; seeds as in
-- normal.lua
return function(x, y, kwarg)
  local uniform, out = torch.uniform, y[1]
  local low, high = kwarg.low or 0, kwarg.high or 1
  local generator = torch.generator(out, kwarg.seed, kwarg.seed2)
  return function() uniform(out, low, high, generator) end
end
