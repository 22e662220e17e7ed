-- _conv2d_backward_weight: y = gradient of conv2d's weight from g = x[1], x = x[2], weight = x[3]
return function(x, y, kwarg)
  local g, data, weight, out = x[1], x[2], x[3], y[1]
  local stride = kwarg.stride or {1, 1}
  local kernel = {torch.size(weight, 3), torch.size(weight, 4)}
  local top, bottom, left, right = torch.window_pads(data, g, kernel, stride)
  local backward = torch.conv2d_backward_weight
  if top == bottom and left == right then
    local pad = {top, left}
    local buffers = torch.conv2d_buffers(data, weight, g, stride, pad, true)
    return function() backward(out, g, data, weight, stride, pad, buffers) end
  end
  -- asymmetric padding: correlate g with the zero-bordered copy of x, as the forward did
  local copy, none = torch.copy, {0, 0}
  local padded, inside = torch.pad_buffer(data, top, bottom, left, right, 0)
  return function()
    copy(inside, data)
    backward(out, g, padded, weight, stride, none)
  end
end
