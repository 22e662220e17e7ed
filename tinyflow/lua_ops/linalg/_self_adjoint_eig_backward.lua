-- _self_adjoint_eig_backward: y = the gradient of self_adjoint_eig's input x[1] from that of e
-- (x[2]) and, with kwarg.compute_v (default), of v (x[3]) and the outputs e, v (x[4], x[5])
return function(x, y, kwarg)
  local backward, out, a, ge, gv, e, v = kernels.eig_backward, y[1], x[1], x[2], x[3], x[4],
    x[5]
  return function() backward(out, a, ge, gv, e, v) end
end
