-- Lua kernels of the math bodies, added to their kernels table (runtime.py runs this file once).
local torch, kernels = ...
-- cumsum / cumprod: the step function of a running scan (torch.cumsum or torch.cumprod) along
-- kwarg.axis; kwarg.exclusive: shifted one place, the first being `first` (the scan's
-- identity); kwarg.reverse: from the end (TF 1.15's attributes)
function kernels.running(scan, first, x, y, kwarg)
  local flip, copy, fill = torch.flip, torch.copy, torch.fill
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
    scan(running, flipped, dim)
    if exclusive then
      fill(head, first)
      copy(tail, before)
    end
    if reverse then flip(out, exclusive and shifted or running, dim) end
  end
end
