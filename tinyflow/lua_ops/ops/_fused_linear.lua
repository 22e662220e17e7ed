-- _fused_linear: y = act(x @ weight^T + bias) with act kwarg.activation ('tanh', 'relu' or
-- 'sigmoid'), in one oneDNN call on the CPU (torch.linear_activation); bias may be absent
return function(x, y, kwarg)
  local linear, data, weight, bias, out = torch.linear_activation, x[1], x[2], x[3], y[1]
  local activation = kwarg.activation
  return function() linear(out, data, weight, bias, activation) end
end
