-- matrix_triangular_solve: y = X with op(T) X = x[2], T the lower (kwarg.lower, default) or
-- upper triangle of x[1], op the adjoint with kwarg.adjoint
return function(x, y, kwarg)
  local solve, out, a, rhs = kernels.triangular_solve, y[1], x[1], x[2]
  local lower, adjoint = kwarg.lower, kwarg.adjoint
  return function() solve(out, a, rhs, lower, adjoint) end
end
