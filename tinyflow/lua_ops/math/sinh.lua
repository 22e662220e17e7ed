-- sinh: y = sinh(x)
return function(x, y, kwarg)
  local sinh, a, out = torch.sinh, x[1], y[1]
  return function() sinh(out, a) end
end
