-- floordiv: y = floordiv(a, b) (numpy broadcasting)
return function(x, y, kwarg)
  local floordiv, a, b, out = torch.floordiv, x[1], x[2], y[1]
  return function() floordiv(out, a, b) end
end
