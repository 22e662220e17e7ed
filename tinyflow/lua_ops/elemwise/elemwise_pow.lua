-- elemwise_pow: y = a ^ b (numpy broadcasting)
return function(x, y, kwarg)
  local pow, a, b, out = torch.pow, x[1], x[2], y[1]
  return function() pow(out, a, b) end
end
