-- avg_pool2d: y = mean over kwarg.kernel windows of x moved by kwarg.stride, padding not
-- counted; the padding follows from x's and y's sizes (uneven: window sums of a zero-bordered
-- copy of x / the real pixels of each window); NHWC tensors as NCHW views
return function(x, y, kwarg)
  local nchw, layout = kernels.nchw_view, kwarg.data_format
  local data, out = nchw(x[1], layout), nchw(y[1], layout)
  local kernel, stride = kwarg.kernel, kwarg.stride or {1, 1}
  local pad, input, fill_input = kernels.window_input(data, out, kernel, stride, 0)
  local count = kernels.window_count(data, out, kernel, stride)  -- nil: torch leaves padding out
  local pool = kernels.avg_pool2d
  return function()
    if fill_input then fill_input() end
    pool(out, input, kernel, stride, pad, count)
  end
end
