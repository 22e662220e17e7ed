-- conv2d: y = conv(x, weight) (+ bias) on NCHW x; kwarg.stride; the padding follows from x's and
-- y's sizes (TensorFlow's uneven SAME padding: x is copied into a zero-bordered buffer first,
-- see torch.window_input)
return function(x, y, kwarg)
  local data, weight, bias, out = x[1], x[2], x[3], y[1]
  local stride = kwarg.stride or {1, 1}
  local kernel = {torch.size(weight, 3), torch.size(weight, 4)}
  local pad, input, fill_input = torch.window_input(data, out, kernel, stride, 0)
  -- channels-last copies when MKL-DNN is clearly faster on them for these shapes
  local conv2d, buffers = torch.conv2d, torch.conv2d_buffers(input, weight, out, stride, pad)
  return function()
    if fill_input then fill_input() end
    conv2d(out, input, weight, bias, stride, pad, buffers)
  end
end
