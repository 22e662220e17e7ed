-- constant: y = kwarg.value (a flat array) in kwarg.shape
return function(x, y, kwarg)
  local copy, out = torch.copy, y[1]
  local value = torch.tensor_like(out, kwarg.value, kwarg.shape)
  return function() copy(out, value) end
end
