-- _max_pool2d_backward: y = gradient of max_pool2d's x from g = x[1] and the forward's argmax
-- x[3]; x[2] (max_pool2d's input) gives only the shape
return function(x, y, kwarg)
  local g, data, index, out = x[1], x[2], x[3], y[1]
  local kernel, stride = kwarg.kernel, kwarg.stride or {1, 1}
  local backward = torch.max_pool2d_backward
  local top, bottom, left, right = torch.window_pads(data, g, kernel, stride)
  if top == bottom and left == right then
    local pad = {top, left}
    return function() backward(out, g, index, kernel, stride, pad) end
  end
  -- the argmax points into the forward's padded copy of x: scatter there, keep the inside
  local copy, none = torch.copy, {0, 0}
  local grad_padded, grad_inside = torch.pad_buffer(data, top, bottom, left, right, 0)
  return function()
    backward(grad_padded, g, index, kernel, stride, none)
    copy(out, grad_inside)
  end
end
