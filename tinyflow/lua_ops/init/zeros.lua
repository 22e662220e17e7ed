-- zeros: y = 0 (shape from kwarg.shape)
return function(x, y, kwarg)
  local zero, out = torch.zero, y[1]
  return function() zero(out) end
end
