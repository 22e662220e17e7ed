-- _strided_slice_backward: y = zeros of x[2]'s shape with g = x[1] where strided_slice read
return function(x, y, kwarg)
  local g, out = x[1], y[1]
  local view, flips = kernels.strided_view(out, kwarg)
  local zero, copy, flip = torch.zero, torch.copy, torch.flip
  return function()
    zero(out)
    if flips == nil then copy(view, g) else flip(view, g, flips) end
  end
end
