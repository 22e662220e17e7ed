-- _variable_init: y = the initial value of the variable it is assigned to (kwarg.method: zeros,
-- ones, normal with kwarg.stdev, xavier_uniform with fans from y's shape as in PyTorch); the
-- random methods draw from kwarg.generator as normal.lua does
return function(x, y, kwarg)
  local out, method, generator = y[1], kwarg.method or "zeros", kwarg.generator
  if method == "zeros" then
    local zero = torch.zero
    return function() zero(out) end
  elseif method == "ones" then
    local fill = torch.fill
    return function() fill(out, 1) end
  elseif method == "normal" then
    local normal, stdev = torch.normal, kwarg.stdev or 0.01
    return function() normal(out, 0, stdev, generator) end
  end
  -- xavier_uniform: U(-a, a), a = sqrt(6 / (fan_in + fan_out)); a weight is (out, in, kernel...)
  local shape = torch.shape(out)
  local receptive = 1
  for i = 3, #shape do receptive = receptive * shape[i] end
  local fan_in, fan_out = (shape[2] or 1) * receptive, (shape[1] or 1) * receptive
  local uniform, limit = torch.uniform, math.sqrt(6 / (fan_in + fan_out))
  return function() uniform(out, -limit, limit, generator) end
end
