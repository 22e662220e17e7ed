-- _max_pool2d_backward: y = gradient of max_pool2d's x from g = x[1] and x = x[2]; the maxima are
-- found again (cheaper than keeping int64 indices alive from the forward to here)
return function(x, y, kwarg)
  local g, data, out, kernel, stride = x[1], x[2], y[1], kwarg.kernel, kwarg.stride or {1, 1}
  local backward = torch.max_pool2d_backward
  local top, bottom, left, right = torch.window_pads(data, g, kernel, stride)
  if top == bottom and left == right then
    local pad, buffers = {top, left}, torch.max_pool2d_buffers(data, g)
    return function() backward(out, g, data, kernel, stride, pad, buffers) end
  end
  local copy, none = torch.copy, {0, 0}
  local padded, inside = torch.pad_buffer(data, top, bottom, left, right, -math.huge)
  local grad_padded, grad_inside = torch.pad_buffer(data, top, bottom, left, right, 0)
  local buffers = torch.max_pool2d_buffers(padded, g)
  return function()
    copy(inside, data)
    backward(grad_padded, g, padded, kernel, stride, none, buffers)
    copy(out, grad_inside)
  end
end
