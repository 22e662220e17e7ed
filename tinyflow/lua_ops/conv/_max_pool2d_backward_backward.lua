-- _max_pool2d_backward_backward: y = h = x[1] (of max_pool2d's input shape) at each window's
-- argmax x[2] (TensorFlow's MaxPoolGradGrad); with uneven padding the argmax points into a
-- bordered copy, so h is read through the same border.  NHWC tensors as NCHW views
return function(x, y, kwarg)
  local nchw, layout = kernels.nchw_view, kwarg.data_format
  local h, index, out = nchw(x[1], layout), nchw(x[2], layout), nchw(y[1], layout)
  local kernel, stride = kwarg.kernel, kwarg.stride or {1, 1}
  local _, input, fill_input = kernels.window_input(h, out, kernel, stride, 0)
  local gather = kernels.max_pool2d_gather
  return function()
    if fill_input then fill_input() end
    gather(out, input, index)
  end
end
