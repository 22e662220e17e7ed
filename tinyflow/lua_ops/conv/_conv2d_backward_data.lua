-- _conv2d_backward_data: y = gradient of conv2d's x from g = x[1] and weight = x[#x] (x[2], when
-- given, is conv2d's x, read for its shape only: y's; conv2d_transpose gives attr input_size
-- instead).  With uneven padding: the gradient of conv2d's zero-bordered copy of x, then its
-- inside.  NHWC and HWIO tensors as NCHW / OIHW views.
return function(x, y, kwarg)
  local nchw, layout = kernels.nchw_view, kwarg.data_format
  local g, out = nchw(x[1], layout), nchw(y[1], layout)
  local weight = kernels.oihw_view(x[#x], kwarg.filter_format)
  local stride, dilation = kwarg.stride or {1, 1}, kwarg.dilation
  local kernel = kernels.kernel_extent(weight, dilation)
  local pad, grad, take_inside = kernels.window_grad(out, g, out, kernel, stride)
  local backward = kernels.conv2d_backward_data
  return function()
    backward(grad, g, grad, weight, stride, pad, dilation)  -- the kernel takes x's shape only (grad's)
    if take_inside then take_inside() end
  end
end
