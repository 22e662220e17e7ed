-- batch_matmul: y = op(x[1]) @ op(x[2]) for each matrix, op the adjoint with kwarg.adjoint_a /
-- kwarg.adjoint_b
return function(x, y, kwarg)
  local matmul, out, a, b = kernels.batch_matmul, y[1], x[1], x[2]
  local adjoint_a, adjoint_b = kwarg.adjoint_a, kwarg.adjoint_b
  return function() matmul(out, a, b, adjoint_a, adjoint_b) end
end
