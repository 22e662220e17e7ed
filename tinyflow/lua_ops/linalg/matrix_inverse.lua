-- matrix_inverse: y = inv(x[1]) (inv(x[1]^H) with kwarg.adjoint); singular: TF's error
return function(x, y, kwarg)
  local inverse, out, a, adjoint = kernels.inverse, y[1], x[1], kwarg.adjoint
  return function() inverse(out, a, adjoint) end
end
