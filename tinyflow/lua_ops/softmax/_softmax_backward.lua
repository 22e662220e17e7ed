-- _softmax_backward: gradient of softmax from g = x[1] and softmax's output x[2]
return function(x, y, kwarg)
  local backward, g, out_fwd, out = kernels.softmax_backward, x[1], x[2], y[1]
  local dim = torch.dim_of(kwarg.axis or -1)
  return function() backward(out, g, out_fwd, dim) end
end
