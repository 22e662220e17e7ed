-- ceil: y = ceil(x)
return function(x, y, kwarg)
  local ceil, a, out = torch.ceil, x[1], y[1]
  return function() ceil(out, a) end
end
