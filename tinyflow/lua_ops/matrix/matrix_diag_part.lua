-- matrix_diag_part: y = the diagonals [..., min(M, N)] of the matrices x[1] [..., M, N]
return function(x, y, kwarg)
  local part, out, src = kernels.diag_part, y[1], x[1]
  return function() part(out, src) end
end
