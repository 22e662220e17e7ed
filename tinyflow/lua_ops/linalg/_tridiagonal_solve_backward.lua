-- _tridiagonal_solve_backward: y[1], y[2] = the gradients of the diagonals and the rhs, given
-- x[1] = the output's gradient, x[2] = the diagonals, x[3] = the solution
return function(x, y, kwarg)
  local backward, g, diags, solution = kernels.tridiagonal_backward, x[1], x[2], x[3]
  local grad_diags, grad_rhs, pivoting = y[1], y[2], kwarg.partial_pivoting
  return function() backward(grad_diags, grad_rhs, g, diags, solution, pivoting) end
end
