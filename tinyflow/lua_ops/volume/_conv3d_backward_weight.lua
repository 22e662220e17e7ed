-- _conv3d_backward_weight: y = gradient of conv3d's filter from g = x[1], x = x[2] and the
-- filter x[3] (its shape)
return function(x, y, kwarg)
  local view, layout = kernels.volume_view, kwarg.data_format
  local g, data, out = view(x[1], layout), view(x[2], layout), kernels.filter_view(y[1])
  local stride = kwarg.stride or {1, 1, 1}
  local pads = kernels.volume_pads(data, g, kernels.filter_kernel(out), stride)
  local backward = kernels.conv3d_backward_weight
  return function() backward(out, g, data, stride, pads) end
end
