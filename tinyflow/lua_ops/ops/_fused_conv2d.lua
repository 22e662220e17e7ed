-- _fused_conv2d: y = act(conv2d(x, weight) + bias) with act kwarg.activation ('tanh', 'relu' or
-- 'sigmoid'), in one oneDNN call on the CPU (torch.conv2d_activation); padding and layouts as
-- conv2d.lua (NHWC x and y, HWIO weight as NCHW / OIHW views)
return function(x, y, kwarg)
  local nchw, layout = torch.nchw_view, kwarg.data_format
  local data, out = nchw(x[1], layout), nchw(y[1], layout)
  local weight, bias = torch.oihw_view(x[2], kwarg.filter_format), x[3]
  local stride = kwarg.stride or {1, 1}
  local kernel = {torch.size(weight, 3), torch.size(weight, 4)}
  local pad, input, fill_input = torch.window_input(data, out, kernel, stride, 0)
  local conv, activation = torch.conv2d_activation, kwarg.activation
  return function()
    if fill_input then fill_input() end
    conv(out, input, weight, bias, stride, pad, activation)
  end
end
