-- tan: y = tan(x)
return function(x, y, kwarg)
  local tan, a, out = torch.tan, x[1], y[1]
  return function() tan(out, a) end
end
