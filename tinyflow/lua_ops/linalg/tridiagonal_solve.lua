-- tridiagonal_solve: y = X with A X = x[2], A tridiagonal given by its diagonals x[1] [..., 3, M]
return function(x, y, kwarg)
  local solve, out, diags, rhs = kernels.tridiagonal_solve, y[1], x[1], x[2]
  local pivoting = kwarg.partial_pivoting
  return function() solve(out, diags, rhs, pivoting) end
end
