-- _avg_pool3d_backward: y = gradient of avg_pool3d's x from g = x[1] and x = x[2] (its shape):
-- each window's g / count spread over its real pixels.  NDHWC tensors as NCDHW views.
return function(x, y, kwarg)
  local view, layout = kernels.volume_view, kwarg.data_format
  local g, out = view(x[1], layout), view(y[1], layout)
  local kernel, stride = kwarg.kernel, kwarg.stride or {1, 1, 1}
  local pads = kernels.volume_pads(out, g, kernel, stride)
  local backward = kernels.avg_pool3d_backward
  return function() backward(out, g, kernel, stride, pads) end
end
