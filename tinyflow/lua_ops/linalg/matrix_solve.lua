-- matrix_solve: y = X with op(x[1]) X = x[2], op the adjoint with kwarg.adjoint; singular: TF's
-- error
return function(x, y, kwarg)
  local solve, out, a, rhs, adjoint = kernels.solve, y[1], x[1], x[2], kwarg.adjoint
  return function() solve(out, a, rhs, adjoint) end
end
