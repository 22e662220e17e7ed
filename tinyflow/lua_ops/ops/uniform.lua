-- uniform: y ~ U(kwarg.low, kwarg.high)
return function(x, y, kwarg)
  local uniform, out = torch.uniform, y[1]
  local low, high = kwarg.low or 0, kwarg.high or 1
  return function() uniform(out, low, high) end
end
