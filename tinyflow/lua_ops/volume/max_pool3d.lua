-- max_pool3d: y = the max over kwarg.kernel windows of x moved by kwarg.stride;
-- the padding follows from x's and y's sizes.  NDHWC tensors as NCDHW views, no copy.
return function(x, y, kwarg)
  local view, layout = kernels.volume_view, kwarg.data_format
  local data, out = view(x[1], layout), view(y[1], layout)
  local kernel, stride = kwarg.kernel, kwarg.stride or {1, 1, 1}
  local pads = kernels.volume_pads(data, out, kernel, stride)
  local pool = kernels.max_pool3d
  return function() pool(out, data, kernel, stride, pads) end
end
