-- matrix_square_root: y = the principal square root of each matrix x[1] (NaN where none is real)
return function(x, y, kwarg)
  local sqrtm, out, a = kernels.sqrtm, y[1], x[1]
  return function() sqrtm(out, a) end
end
