-- uniform: y ~ U(kwarg.low, kwarg.high), integers in [low, high) for an integer y; the generator
-- as in normal.lua
return function(x, y, kwarg)
  local uniform, out = torch.uniform, y[1]
  local low, high, generator = kwarg.low or 0, kwarg.high or 1, kwarg.generator
  return function() uniform(out, low, high, generator) end
end
