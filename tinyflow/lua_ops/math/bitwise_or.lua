-- bitwise_or: y = a | b, the bits of integer tensors (numpy broadcasting)
return function(x, y, kwarg)
  local bitwise, a, b, out = kernels.bitwise, x[1], x[2], y[1]
  return function() bitwise(out, a, b, "or") end
end
