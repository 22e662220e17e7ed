-- _avg_pool2d_backward: y = gradient of avg_pool2d's x from g = x[1] and x = x[2]
return function(x, y, kwarg)
  local g, data, out, kernel, stride = x[1], x[2], y[1], kwarg.kernel, kwarg.stride or {1, 1}
  local backward = torch.avg_pool2d_backward
  local top, bottom, left, right = torch.window_pads(data, g, kernel, stride)
  if top == bottom and left == right then
    local pad = {top, left}
    return function() backward(out, g, data, kernel, stride, pad, nil, nil) end
  end
  -- asymmetric SAME padding: spread g / count over the zero-bordered copy, keep its inside
  local copy, none = torch.copy, {0, 0}
  local padded, inside = torch.pad_buffer(data, top, bottom, left, right, 0)
  local count = torch.window_count(data, g, kernel, stride, top, bottom, left, right)
  local scaled = torch.empty_like(g)
  return function()
    backward(padded, g, padded, kernel, stride, none, count, scaled)
    copy(out, inside)
  end
end
