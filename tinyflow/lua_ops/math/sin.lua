-- sin: y = sin(x)
return function(x, y, kwarg)
  local sin, a, out = torch.sin, x[1], y[1]
  return function() sin(out, a) end
end
