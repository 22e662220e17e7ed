-- max_pool2d: y[1] = max over kwarg.kernel windows of x moved by kwarg.stride, y[2] = the argmax
-- of each window (int64, for the backward); the padding (not counted) follows from x's and y's
-- sizes (uneven: x is copied into a -inf-bordered buffer first); no y[2] with kwarg.argmax
-- false.  NHWC tensors are pooled as
-- NCHW views with channels-last strides, which torch pools fastest: no copies then; 2x2
-- windows at stride 2 by the native kernel where it applies (max_pool_2x2.c, same values).
return function(x, y, kwarg)
  local nchw, layout = kernels.nchw_view, kwarg.data_format
  local data, out = nchw(x[1], layout), nchw(y[1], layout)
  local index = y[2] and nchw(y[2], layout)
  local kernel, stride = kwarg.kernel, kwarg.stride or {1, 1}
  local pad, input, fill_input = kernels.window_input(data, out, kernel, stride, -math.huge)
  local pool, buffers = kernels.max_pool2d, nil
  if layout ~= "NHWC" then buffers = kernels.max_pool2d_buffers(input, out, index ~= nil) end
  local native = index and kernels.max_pool2d_native(out, index, input, kernel, stride, pad)
  return function()
    if fill_input then fill_input() end
    if native then native() else pool(out, index, input, kernel, stride, pad, buffers) end
  end
end
