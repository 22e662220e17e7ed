-- strided_slice: y = x[index], the index given by TensorFlow's begin, end, strides and masks
return function(x, y, kwarg)
  local out = y[1]
  local view, flips = kernels.strided_view(x[1], kwarg)
  if flips == nil then
    local copy = torch.copy
    return function() copy(out, view) end
  end
  local flip = torch.flip  -- negative strides: the elements in torch's order, reversed
  return function() flip(out, view, flips) end
end
