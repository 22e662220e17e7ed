-- qr: y[1], y[2] = q, r with x[1] = q r (complete with kwarg.full_matrices)
return function(x, y, kwarg)
  local qr, q, r, a, full = kernels.qr, y[1], y[2], x[1], kwarg.full_matrices
  return function() qr(q, r, a, full) end
end
