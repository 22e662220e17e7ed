-- linear: y = x @ weight^T (+ bias, broadcast over the rows).  _fused_linear runs this body too:
-- y = act(x @ weight^T + bias) with kwarg.activation ('tanh', 'relu' or 'sigmoid'), one oneDNN
-- call on the CPU (kernels.linear_activation)
return function(x, y, kwarg)
  local data, weight, bias, out = x[1], x[2], x[3], y[1]
  local activation = kwarg.activation
  if activation then
    local linear = kernels.linear_activation
    return function() linear(out, data, weight, bias, activation) end
  end
  local weight_t = torch.t(weight)
  if bias == nil then
    local mm = torch.mm
    return function() mm(out, data, weight_t) end
  end
  local addmm = torch.addmm
  return function() addmm(out, bias, data, weight_t) end
end
