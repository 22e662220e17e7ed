-- _sigmoid_backward: y = the gradient of sigmoid's x from g = x[1] and sigmoid's output x[2]
return function(x, y, kwarg)
  local backward, g, sigmoid_out, out = kernels.sigmoid_backward, x[1], x[2], y[1]
  return function() backward(out, g, sigmoid_out) end
end
