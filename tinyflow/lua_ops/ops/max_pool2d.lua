-- max_pool2d: y[1] = max over kwarg.kernel windows of NCHW x moved by kwarg.stride, y[2] = the
-- argmax of each window (int64, for the backward); the padding (not counted) follows from x's
-- and y's sizes (uneven: x is copied into a -inf-bordered buffer first)
return function(x, y, kwarg)
  local data, out, index, kernel, stride = x[1], y[1], y[2], kwarg.kernel, kwarg.stride or {1, 1}
  local pad, input, fill_input = torch.window_input(data, out, kernel, stride, -math.huge)
  local pool, buffers = torch.max_pool2d, torch.max_pool2d_buffers(input, out)
  return function()
    if fill_input then fill_input() end
    pool(out, index, input, kernel, stride, pad, buffers)
  end
end
