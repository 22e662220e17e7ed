-- sparse_tensor_dense_matmul: y[1] = op(a) @ op(b), a the sparse matrix (indices x[1], values
-- x[2], dense shape x[3]), b x[4]; kwarg.adjoint_a / adjoint_b transpose (TShapeAtRunTime:
-- kernels.matmul sizes y[1], checked with kwarg.check_fits first)
return function(x, y, kwarg)
  local matmul, out, fits = kernels.matmul, y[1], kwarg.check_fits
  local indices, values, shape, b = x[1], x[2], x[3], x[4]
  local adjoint_a, adjoint_b = kwarg.adjoint_a, kwarg.adjoint_b
  return function() matmul(out, indices, values, shape, b, adjoint_a, adjoint_b, fits) end
end
