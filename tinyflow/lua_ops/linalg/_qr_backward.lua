-- _qr_backward: y = the gradient of qr's input from q, r (x[1], x[2]) and their gradients
-- (x[3], x[4])
return function(x, y, kwarg)
  local backward, out, q, r, gq, gr = kernels.qr_backward, y[1], x[1], x[2], x[3], x[4]
  return function() backward(out, q, r, gq, gr) end
end
