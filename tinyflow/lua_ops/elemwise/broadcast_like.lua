-- broadcast_like: y = x broadcast to y's shape; kwarg.axis: y's axes that x lacks;
-- kwarg.mean: also divide by the broadcast factor numel(y) / numel(x)
return function(x, y, kwarg)
  local src, out = x[1], y[1]
  local xs, ys = torch.shape(src), torch.shape(out)
  local full = xs
  if kwarg.axis ~= nil then
    local is_axis = {}
    for _, d in ipairs(torch.dims_of(kwarg.axis)) do
      is_axis[d > 0 and d or #ys + d + 1] = true
    end
    full = {}
    local j = 1
    for i = 1, #ys do
      if is_axis[i] then full[i] = 1 else full[i] = xs[j]; j = j + 1 end
    end
  end
  local expanded = torch.expand(torch.view(src, full), ys)
  -- a mean's gradient divides by the count N (g / N, as the forward divides; g * (1 / N) can
  -- be one float step off)
  local count = kwarg.mean and torch.numel(out) / torch.numel(src) or 1
  if count == 1 then  -- x / 1 is x: a copy, without torch's scalar-operand cost
    local copy = torch.copy
    return function() copy(out, expanded) end
  end
  local div = torch.div
  return function() div(out, expanded, count) end
end
