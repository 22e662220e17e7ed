-- sigmoid: y = 1 / (1 + e ^ -x)
return function(x, y, kwarg)
  local sigmoid, a, out = torch.sigmoid, x[1], y[1]
  return function() sigmoid(out, a) end
end
