-- elemwise_div: y = a / b (numpy broadcasting)
return function(x, y, kwarg)
  local cdiv, a, b, out = torch.cdiv, x[1], x[2], y[1]
  return function() cdiv(out, a, b) end
end
