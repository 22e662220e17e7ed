-- _relu_backward: y = g where relu's output > 0, else 0
return function(x, y, kwarg)
  local relu_backward, g, relu_out, out = kernels.relu_backward, x[1], x[2], y[1]
  return function() relu_backward(out, g, relu_out) end
end
