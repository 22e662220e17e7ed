-- tile: y = x repeated kwarg.multiples[i] times along each axis i: y viewed as (m1, d1, m2,
-- d2, ...) is x viewed as (1, d1, 1, d2, ...) expanded
return function(x, y, kwarg)
  local sizes, multiples = torch.shape(x[1]), kwarg.multiples
  local wide, narrow = {}, {}
  for i = 1, #sizes do
    wide[2 * i - 1], wide[2 * i] = multiples[i], sizes[i]
    narrow[2 * i - 1], narrow[2 * i] = 1, sizes[i]
  end
  local copy, out = torch.copy, torch.view(y[1], wide)
  local src = torch.expand(torch.view(x[1], narrow), wide)
  return function() copy(out, src) end
end
