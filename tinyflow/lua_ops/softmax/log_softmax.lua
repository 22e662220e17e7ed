-- log_softmax: y = log_softmax(x) along kwarg.axis (default -1)
return function(x, y, kwarg)
  local log_softmax, src, out = kernels.log_softmax, x[1], y[1]
  local dim = torch.dim_of(kwarg.axis or -1)
  return function() log_softmax(out, src, dim) end
end
