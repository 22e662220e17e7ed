-- conv2d: y = conv(x, weight) (+ bias); kwarg.stride, kwarg.dilation (nil: 1s); the padding
-- follows from x's and y's sizes (TensorFlow's uneven SAME padding: x is copied into a
-- zero-bordered buffer first, see kernels.window_input).  NHWC x and y and an HWIO (HWIM:
-- depthwise) weight are seen as NCHW / OIHW views, no copy.
-- _fused_conv2d runs this body too: y = act(conv2d(x, weight) + bias) with kwarg.activation
-- ('tanh', 'relu' or 'sigmoid'), one oneDNN call on the CPU (kernels.conv2d_activation).
return function(x, y, kwarg)
  local nchw, layout = kernels.nchw_view, kwarg.data_format
  local data, out = nchw(x[1], layout), nchw(y[1], layout)
  local weight, bias = kernels.oihw_view(x[2], kwarg.filter_format), x[3]
  local stride, dilation = kwarg.stride or {1, 1}, kwarg.dilation
  local kernel = kernels.kernel_extent(weight, dilation)
  local pad, input, fill_input = kernels.window_input(data, out, kernel, stride, 0)
  local activation = kwarg.activation
  if activation then
    local conv = kernels.conv2d_activation
    return function()
      if fill_input then fill_input() end
      conv(out, input, weight, bias, stride, pad, activation, dilation)
    end
  end
  -- NCHW: channels-last copies when MKL-DNN is clearly faster on them for these shapes
  local conv2d, buffers = kernels.conv2d, nil
  if layout ~= "NHWC" then
    buffers = kernels.conv2d_buffers(input, weight, out, stride, pad, false, dilation)
  end
  return function()
    if fill_input then fill_input() end
    conv2d(out, input, weight, bias, stride, pad, buffers, dilation)
  end
end
