-- conv3d: y = 3-D convolution of x[1] with the filter x[2] (DHWIO); the padding follows from
-- x's and y's sizes (TensorFlow's SAME: the odd pixel after the data).  NDHWC tensors and the
-- filter are seen as NCDHW / OIDHW views, no copy.
return function(x, y, kwarg)
  local view, layout = kernels.volume_view, kwarg.data_format
  local data, out, weight = view(x[1], layout), view(y[1], layout), kernels.filter_view(x[2])
  local stride = kwarg.stride or {1, 1, 1}
  local pads = kernels.volume_pads(data, out, kernels.filter_kernel(weight), stride)
  local conv = kernels.conv3d
  return function() conv(out, data, weight, stride, pads) end
end
