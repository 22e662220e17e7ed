-- _conv2d_backward_data: y = gradient of conv2d's x from g = x[1], x = x[2], weight = x[3]
-- (with uneven padding: the gradient of conv2d's zero-bordered copy of x, then its inside);
-- NHWC and HWIO tensors as NCHW / OIHW views
return function(x, y, kwarg)
  local nchw, layout = torch.nchw_view, kwarg.data_format
  local g, data, out = nchw(x[1], layout), nchw(x[2], layout), nchw(y[1], layout)
  local weight = torch.oihw_view(x[3], kwarg.filter_format)
  local stride = kwarg.stride or {1, 1}
  local kernel = {torch.size(weight, 3), torch.size(weight, 4)}
  local pad, grad, take_inside = torch.window_grad(data, g, out, kernel, stride)
  local backward = torch.conv2d_backward_data
  return function()
    backward(grad, g, grad, weight, stride, pad)  -- the kernel takes x's shape only (grad's)
    if take_inside then take_inside() end
  end
end
