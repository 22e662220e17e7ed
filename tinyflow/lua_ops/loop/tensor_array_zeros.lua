-- tensor_array_zeros: y[1] = 0 (its shape was inferred from the loop body's value; x are read
-- for their shapes only).
return function(x, y, kwarg)
  local zero, out = torch.zero, y[1]
  return function() zero(out) end
end
