-- linear: y = x @ weight^T (+ bias, broadcast over the rows)
return function(x, y, kwarg)
  local data, weight_t, bias, out = x[1], torch.t(x[2]), x[3], y[1]
  if bias == nil then
    local mm = torch.mm
    return function() mm(out, data, weight_t) end
  end
  local addmm = torch.addmm
  return function() addmm(out, bias, data, weight_t) end
end
