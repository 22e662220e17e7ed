-- _avg_pool2d_backward: y = gradient of avg_pool2d's x from g = x[1] and x = x[2] (uneven
-- padding: g / count spread over a zero-bordered buffer, then its inside)
return function(x, y, kwarg)
  local g, data, out, kernel, stride = x[1], x[2], y[1], kwarg.kernel, kwarg.stride or {1, 1}
  local pad, grad, take_inside = torch.window_grad(data, g, out, kernel, stride)
  local count = torch.window_count(data, g, kernel, stride)  -- nil: torch leaves padding out
  local scaled = count and torch.empty_like(g) or nil  -- g / count
  local backward = torch.avg_pool2d_backward
  return function()
    backward(grad, g, grad, kernel, stride, pad, count, scaled)
    if take_inside then take_inside() end
  end
end
