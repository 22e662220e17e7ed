-- pad: y = x with |pad| copies of kwarg.value (default 0) along kwarg.dim, in front when pad < 0,
-- behind when pad > 0
return function(x, y, kwarg)
  local src, out = x[1], y[1]
  local dim, pad = torch.dim_of(kwarg.dim), kwarg.pad
  local n = torch.size(src, dim)
  local start = pad < 0 and 1 - pad or 1
  local inside = torch.narrow(out, dim, start, n)
  if pad == 0 then
    local copy = torch.copy
    return function() copy(inside, src) end
  end
  local border = torch.narrow(out, dim, pad < 0 and 1 or n + 1, math.abs(pad))
  local fill, copy, value = torch.fill, torch.copy, kwarg.value or 0
  return function()
    fill(border, value)
    copy(inside, src)
  end
end
