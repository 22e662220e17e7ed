-- lrn: y = x / (bias + alpha * sqr_sum) ^ beta, sqr_sum the sum of x^2 over the window
-- [d - depth_radius, d + depth_radius] of the last axis (TensorFlow's LRN, NHWC)
return function(x, y, kwarg)
  local src, out = x[1], y[1]
  local radius, bias, alpha, beta = kwarg.depth_radius, kwarg.bias, kwarg.alpha, kwarg.beta
  local squares, norm = torch.empty_like(src), torch.empty_like(src)
  local cmul, window_sum, mul, add, pow, cdiv =
    torch.cmul, kernels.window_sum, torch.mul, torch.add, torch.pow, torch.cdiv
  return function()
    cmul(squares, src, src)
    window_sum(norm, squares, radius)
    mul(norm, norm, alpha)
    add(norm, norm, bias)
    pow(norm, norm, beta)
    cdiv(out, src, norm)  -- out may be src's memory: each element is read before written
  end
end
