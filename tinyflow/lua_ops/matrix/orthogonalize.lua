-- orthogonalize: y = Q of x[1]'s reduced QR, its columns' signs those of R's diagonal
return function(x, y, kwarg)
  local orthogonalize, out, a = kernels.orthogonalize, y[1], x[1]
  return function() orthogonalize(out, a) end
end
