-- _max_pool3d_backward_backward: y = h = x[1] (x's shape) at each window's maximum of x = x[2],
-- found by pooling x again.  NDHWC tensors as NCDHW views.
return function(x, y, kwarg)
  local view, layout = kernels.volume_view, kwarg.data_format
  local h, data, out = view(x[1], layout), view(x[2], layout), view(y[1], layout)
  local kernel, stride = kwarg.kernel, kwarg.stride or {1, 1, 1}
  local pads = kernels.volume_pads(data, out, kernel, stride)
  local gather = kernels.max_pool3d_gather
  return function() gather(out, h, data, kernel, stride, pads) end
end
