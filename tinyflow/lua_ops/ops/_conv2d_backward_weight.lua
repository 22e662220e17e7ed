-- _conv2d_backward_weight: y = gradient of conv2d's weight from g = x[1], x = x[2], weight = x[3]
-- (with uneven padding: g correlated with the zero-bordered copy of x, as the forward did)
return function(x, y, kwarg)
  local g, data, weight, out = x[1], x[2], x[3], y[1]
  local stride = kwarg.stride or {1, 1}
  local kernel = {torch.size(weight, 3), torch.size(weight, 4)}
  local pad, input, fill_input = torch.window_input(data, g, kernel, stride, 0)
  local backward = torch.conv2d_backward_weight
  local buffers = torch.conv2d_buffers(input, weight, g, stride, pad, true)
  return function()
    if fill_input then fill_input() end
    backward(out, g, input, weight, stride, pad, buffers)
  end
end
