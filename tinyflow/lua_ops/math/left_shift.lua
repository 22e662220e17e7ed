-- left_shift: y = a << b, b clamped to [0, bits - 1] (TF's kernel), numpy broadcasting
return function(x, y, kwarg)
  local shift, a, b, out, scratch = kernels.shift, x[1], x[2], y[1], torch.empty_like(x[2])
  return function() shift(out, a, b, true, scratch) end
end
