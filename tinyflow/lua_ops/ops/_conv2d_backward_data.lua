-- _conv2d_backward_data: y = gradient of conv2d's x from g = x[1], x = x[2], weight = x[3]
-- (with uneven padding: the gradient of conv2d's zero-bordered copy of x, then its inside)
return function(x, y, kwarg)
  local g, data, weight, out = x[1], x[2], x[3], y[1]
  local stride = kwarg.stride or {1, 1}
  local kernel = {torch.size(weight, 3), torch.size(weight, 4)}
  local pad, grad, take_inside = torch.window_grad(data, g, out, kernel, stride)
  local backward = torch.conv2d_backward_data
  return function()
    backward(grad, g, grad, weight, stride, pad)  -- the kernel takes x's shape only (grad's)
    if take_inside then take_inside() end
  end
end
