-- next_after: y = the next float after x[1] towards x[2], broadcasting
return function(x, y, kwarg)
  local next_after, a, b, out = kernels.next_after, x[1], x[2], y[1]
  return function() next_after(out, a, b) end
end
