-- tensor_array_rows: y[1] = the first x[2] rows of x[1] (a dynamic_size TensorArray's
-- elements and how many were written: its stack), a tensor of its own (TShapeAtRunTime);
-- an array never written gives zeros of kwarg.element shape (when known).
return function(x, y, kwarg)
  local rows, elements, count, out, element = kernels.rows, x[1], x[2], y[1], kwarg.element
  return function() rows(out, elements, count, element) end
end
