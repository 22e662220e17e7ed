-- set_operation: y = the sparse tensor (indices, values, dense shape) of kwarg.operation on the
-- sets in the last dim of a and b, each one dense input or three sparse ones (kwarg.a_sparse,
-- kwarg.b_sparse); sized as it runs (TShapeAtRunTime: checked with kwarg.check_fits first)
return function(x, y, kwarg)
  local operate, fits, operation = kernels.set_operation, kwarg.check_fits, kwarg.operation
  local a_size = kwarg.a_sparse and 3 or 1
  local a, b = {}, {}
  for i = 1, #x do
    if i <= a_size then a[i] = x[i] else b[i - a_size] = x[i] end
  end
  return function() operate(y[1], y[2], y[3], a, b, operation, fits) end
end
