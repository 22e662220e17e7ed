-- select_index: y = x[1] at the scalar index x[2] along kwarg.axis (checked when it runs)
return function(x, y, kwarg)
  local out, src, index, axis, select = y[1], x[1], x[2], kwarg.axis, kernels.select_index
  return function() select(out, src, index, axis) end
end
