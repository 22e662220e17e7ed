-- minimum: y = minimum(a, b) (numpy broadcasting)
return function(x, y, kwarg)
  local cmin, a, b, out = torch.cmin, x[1], x[2], y[1]
  return function() cmin(out, a, b) end
end
