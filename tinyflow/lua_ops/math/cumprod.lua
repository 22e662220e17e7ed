-- cumprod: y = running products of x along kwarg.axis; kwarg.exclusive: shifted one
-- place, the first being 1; kwarg.reverse: from the end (TF 1.15's attributes)
return function(x, y, kwarg)
  local cumprod, flip, copy, fill = torch.cumprod, torch.flip, torch.copy, torch.fill
  local src, out, dim = x[1], y[1], torch.dim_of(kwarg.axis)
  local n, exclusive, reverse = torch.size(src, dim), kwarg.exclusive, kwarg.reverse
  if n == 0 then return function() end end
  local flipped = reverse and torch.empty_like(src) or src
  local running = (exclusive or reverse) and torch.empty_like(src) or out
  local shifted = reverse and flipped or out  -- flipped is free once running is computed
  local head, tail = torch.narrow(shifted, dim, 1, 1), torch.narrow(shifted, dim, 2, n - 1)
  local before = torch.narrow(running, dim, 1, n - 1)
  return function()
    if reverse then flip(flipped, src, dim) end
    cumprod(running, flipped, dim)
    if exclusive then
      fill(head, 1)
      copy(tail, before)
    end
    if reverse then flip(out, exclusive and shifted or running, dim) end
  end
end
