-- _max_pool2d_backward: y = gradient of max_pool2d's x from g = x[1] and the forward's argmax
-- x[3]; x[2] (max_pool2d's input) gives only the shape (uneven padding: the argmax points into
-- the forward's bordered copy of x, so g is scattered into a bordered buffer, then its inside);
-- NHWC tensors as NCHW views; 2x2 windows at stride 2 by the native kernel where it applies
return function(x, y, kwarg)
  local nchw, layout = kernels.nchw_view, kwarg.data_format
  local g, data, index, out = nchw(x[1], layout), nchw(x[2], layout), nchw(x[3], layout),
    nchw(y[1], layout)
  local kernel, stride = kwarg.kernel, kwarg.stride or {1, 1}
  local pad, grad, take_inside = kernels.window_grad(data, g, out, kernel, stride)
  local native = kernels.max_pool2d_backward_native(grad, g, index, kernel, stride, pad)
  local backward, g_buffer = kernels.max_pool2d_backward, kernels.layout_buffer(g, out)
  return function()
    if native then native() else backward(grad, g, index, kernel, stride, pad, g_buffer) end
    if take_inside then take_inside() end
  end
end
