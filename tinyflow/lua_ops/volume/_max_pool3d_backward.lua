-- _max_pool3d_backward: y = gradient of max_pool3d's x from g = x[1] and x = x[2]: g added at
-- each window's maximum, found by pooling x again.  NDHWC tensors as NCDHW views.
return function(x, y, kwarg)
  local view, layout = kernels.volume_view, kwarg.data_format
  local g, data, out = view(x[1], layout), view(x[2], layout), view(y[1], layout)
  local kernel, stride = kwarg.kernel, kwarg.stride or {1, 1, 1}
  local pads = kernels.volume_pads(data, g, kernel, stride)
  local backward = kernels.max_pool3d_backward
  return function() backward(out, g, data, kernel, stride, pads) end
end
