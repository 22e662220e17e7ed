-- asin: y = asin(x)
return function(x, y, kwarg)
  local asin, a, out = torch.asin, x[1], y[1]
  return function() asin(out, a) end
end
