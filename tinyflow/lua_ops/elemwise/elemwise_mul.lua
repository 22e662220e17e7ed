-- elemwise_mul: y = a * b (numpy broadcasting)
return function(x, y, kwarg)
  local cmul, a, b, out = torch.cmul, x[1], x[2], y[1]
  return function() cmul(out, a, b) end
end
