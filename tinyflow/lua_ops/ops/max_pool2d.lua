-- max_pool2d: y[1] = max over kwarg.kernel windows of NCHW x moved by kwarg.stride, y[2] = the
-- argmax of each window (int64, for the backward); the padding (not counted) follows from x's
-- and y's sizes
return function(x, y, kwarg)
  local data, out, index, kernel, stride = x[1], y[1], y[2], kwarg.kernel, kwarg.stride or {1, 1}
  local pool = torch.max_pool2d
  local top, bottom, left, right = torch.window_pads(data, out, kernel, stride)
  if top == bottom and left == right then
    local pad, buffers = {top, left}, torch.max_pool2d_buffers(data, out)
    return function() pool(out, index, data, kernel, stride, pad, buffers) end
  end
  -- asymmetric SAME padding: pool a -inf-bordered copy of x without padding
  local copy, none = torch.copy, {0, 0}
  local padded, inside = torch.pad_buffer(data, top, bottom, left, right, -math.huge)
  local buffers = torch.max_pool2d_buffers(padded, out)
  return function()
    copy(inside, data)
    pool(out, index, padded, kernel, stride, none, buffers)
  end
end
