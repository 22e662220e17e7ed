-- matmul: y = a @ b, with a^T / b^T when kwarg.transpose_a / kwarg.transpose_b
return function(x, y, kwarg)
  local a = kwarg.transpose_a and torch.t(x[1]) or x[1]
  local b = kwarg.transpose_b and torch.t(x[2]) or x[2]
  local mm, out = torch.mm, y[1]
  return function() mm(out, a, b) end
end
