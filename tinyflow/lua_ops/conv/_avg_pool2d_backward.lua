-- _avg_pool2d_backward: y = gradient of avg_pool2d's x from g = x[1] and x = x[2] (uneven
-- padding: g / count spread over a zero-bordered buffer, then its inside); NHWC tensors as
-- NCHW views
return function(x, y, kwarg)
  local nchw, layout = kernels.nchw_view, kwarg.data_format
  local g, data, out = nchw(x[1], layout), nchw(x[2], layout), nchw(y[1], layout)
  local kernel, stride = kwarg.kernel, kwarg.stride or {1, 1}
  local pad, grad, take_inside = kernels.window_grad(data, g, out, kernel, stride)
  local count = kernels.window_count(data, g, kernel, stride)  -- nil: torch leaves padding out
  local scaled = count and torch.empty_like(g) or nil  -- g / count
  local backward = kernels.avg_pool2d_backward
  return function()
    backward(grad, g, grad, kernel, stride, pad, count, scaled)
    if take_inside then take_inside() end
  end
end
