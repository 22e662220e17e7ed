-- elemwise_sub: y = a - b (numpy broadcasting)
return function(x, y, kwarg)
  local csub, a, b, out = torch.csub, x[1], x[2], y[1]
  return function() csub(out, a, b) end
end
