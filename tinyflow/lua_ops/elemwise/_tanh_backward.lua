-- _tanh_backward: y = the gradient of tanh's x from g = x[1] and tanh's output x[2]
return function(x, y, kwarg)
  local backward, g, tanh_out, out = kernels.tanh_backward, x[1], x[2], y[1]
  return function() backward(out, g, tanh_out) end
end
