-- avg_pool2d: y = mean over kwarg.kernel windows of NCHW x moved by kwarg.stride, padding not
-- counted; the padding follows from x's and y's sizes
return function(x, y, kwarg)
  local data, out, kernel, stride = x[1], y[1], kwarg.kernel, kwarg.stride or {1, 1}
  local pool = torch.avg_pool2d
  local top, bottom, left, right = torch.window_pads(data, out, kernel, stride)
  if top == bottom and left == right then
    local pad = {top, left}
    return function() pool(out, data, kernel, stride, pad, nil) end
  end
  -- asymmetric SAME padding: window sums of a zero-bordered copy / real pixels per window
  local copy, none = torch.copy, {0, 0}
  local padded, inside = torch.pad_buffer(data, top, bottom, left, right, 0)
  local count = torch.window_count(data, out, kernel, stride, top, bottom, left, right)
  return function()
    copy(inside, data)
    pool(out, padded, kernel, stride, none, count)
  end
end
