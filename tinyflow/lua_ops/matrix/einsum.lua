-- einsum: y = the Einstein sum of x[1] (and x[2]) by kwarg.equation (kernels.einsum)
return function(x, y, kwarg)
  local einsum, out, equation = kernels.einsum, y[1], kwarg.equation
  return function() einsum(out, equation, unpack(x)) end
end
