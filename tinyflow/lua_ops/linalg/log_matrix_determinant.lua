-- log_matrix_determinant: y[1] = sign(det(x[1])), y[2] = log|det(x[1])| of each matrix
return function(x, y, kwarg)
  local slogdet, sign, log_abs, a = kernels.slogdet, y[1], y[2], x[1]
  return function() slogdet(sign, log_abs, a) end
end
