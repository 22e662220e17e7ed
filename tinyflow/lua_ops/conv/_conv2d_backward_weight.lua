-- _conv2d_backward_weight: y = gradient of conv2d's weight from g = x[1], x = x[2], weight = x[3]
-- (with uneven padding: g correlated with the zero-bordered copy of x, as the forward did);
-- NHWC and HWIO tensors as NCHW / OIHW views
return function(x, y, kwarg)
  local nchw, layout = kernels.nchw_view, kwarg.data_format
  local g, data = nchw(x[1], layout), nchw(x[2], layout)
  local weight = kernels.oihw_view(x[3], kwarg.filter_format)
  local out = kernels.oihw_view(y[1], kwarg.filter_format)
  local stride, dilation = kwarg.stride or {1, 1}, kwarg.dilation
  local kernel = kernels.kernel_extent(weight, dilation)
  local pad, input, fill_input = kernels.window_input(data, g, kernel, stride, 0)
  local backward, buffers = kernels.conv2d_backward_weight, nil
  if layout ~= "NHWC" then
    buffers = kernels.conv2d_buffers(input, weight, g, stride, pad, true, dilation)
  end
  return function()
    if fill_input then fill_input() end
    backward(out, g, input, weight, stride, pad, buffers, dilation)
  end
end
