-- mod: y = mod(a, b) (numpy broadcasting)
return function(x, y, kwarg)
  local mod, a, b, out = torch.mod, x[1], x[2], y[1]
  return function() mod(out, a, b) end
end
