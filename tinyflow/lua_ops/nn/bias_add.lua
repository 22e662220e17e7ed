-- bias_add: y = x[1] + x[2], the bias (C,) added along the channel axis (kwarg.data_format
-- NCHW: axis 1; else the last)
return function(x, y, kwarg)
  local value, out, add = x[1], y[1], torch.add
  local bias = kernels.bias_view(x[2], value, kwarg.data_format)
  return function() add(out, value, bias) end
end
