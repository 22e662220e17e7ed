-- conv2d: y = conv(x, weight) (+ bias) on NCHW x; kwarg.stride; the padding follows from x's and
-- y's sizes (TensorFlow's SAME puts an odd pixel after, which torch cannot: then x is copied
-- into a zero-bordered buffer convolved without padding)
return function(x, y, kwarg)
  local data, weight, bias, out = x[1], x[2], x[3], y[1]
  local stride = kwarg.stride or {1, 1}
  local kernel = {torch.size(weight, 3), torch.size(weight, 4)}
  local top, bottom, left, right = torch.window_pads(data, out, kernel, stride)
  local conv2d = torch.conv2d
  if top == bottom and left == right then
    local pad = {top, left}
    -- channels-last copies when MKL-DNN is clearly faster on them for these shapes
    local buffers = torch.conv2d_buffers(data, weight, out, stride, pad)
    return function() conv2d(out, data, weight, bias, stride, pad, buffers) end
  end
  local copy, none = torch.copy, {0, 0}
  local padded, inside = torch.pad_buffer(data, top, bottom, left, right, 0)
  return function()
    copy(inside, data)
    conv2d(out, padded, weight, bias, stride, none)
  end
end
