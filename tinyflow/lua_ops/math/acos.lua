-- acos: y = acos(x)
return function(x, y, kwarg)
  local acos, a, out = torch.acos, x[1], y[1]
  return function() acos(out, a) end
end
