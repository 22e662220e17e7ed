-- _conv3d_backward_data: y = gradient of conv3d's x from g = x[1], x = x[2] (its shape) and the
-- filter x[3]: the transposed convolution of g, the padding cut off
return function(x, y, kwarg)
  local view, layout = kernels.volume_view, kwarg.data_format
  local g, out, weight = view(x[1], layout), view(y[1], layout), kernels.filter_view(x[3])
  local stride = kwarg.stride or {1, 1, 1}
  local pads = kernels.volume_pads(out, g, kernels.filter_kernel(weight), stride)
  local backward = kernels.conv3d_backward_data
  return function() backward(out, g, weight, stride, pads) end
end
