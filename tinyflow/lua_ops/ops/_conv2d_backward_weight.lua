-- _conv2d_backward_weight: y = gradient of conv2d's weight from g = x[1], x = x[2], weight = x[3]
-- (with uneven padding: g correlated with the zero-bordered copy of x, as the forward did);
-- NHWC and HWIO tensors as NCHW / OIHW views
return function(x, y, kwarg)
  local nchw, layout = torch.nchw_view, kwarg.data_format
  local g, data = nchw(x[1], layout), nchw(x[2], layout)
  local weight = torch.oihw_view(x[3], kwarg.filter_format)
  local out = torch.oihw_view(y[1], kwarg.filter_format)
  local stride = kwarg.stride or {1, 1}
  local kernel = {torch.size(weight, 3), torch.size(weight, 4)}
  local pad, input, fill_input = torch.window_input(data, g, kernel, stride, 0)
  local backward, buffers = torch.conv2d_backward_weight, nil
  if layout ~= "NHWC" then
    buffers = torch.conv2d_buffers(input, weight, g, stride, pad, true)
  end
  return function()
    if fill_input then fill_input() end
    backward(out, g, input, weight, stride, pad, buffers)
  end
end
