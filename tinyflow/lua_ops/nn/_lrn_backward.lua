-- _lrn_backward: gradient of lrn's x from g = x[1], x = x[2] and y = x[3] (TensorFlow's LRNGrad):
-- N = bias + alpha * sqr_sum (as lrn), dx = g * N^-beta - 2 alpha beta x * window_sum(g y / N),
-- the window being symmetric (x_k is in the window of d exactly when x_d is in k's)
return function(x, y, kwarg)
  local g, src, lrn_out, out = x[1], x[2], x[3], y[1]
  local radius, bias, alpha, beta = kwarg.depth_radius, kwarg.bias, kwarg.alpha, kwarg.beta
  local norm, scratch = torch.empty_like(src), torch.empty_like(src)
  local cmul, window_sum, mul, add, pow, cdiv =
    torch.cmul, kernels.window_sum, torch.mul, torch.add, torch.pow, torch.cdiv
  return function()
    cmul(scratch, src, src)
    window_sum(norm, scratch, radius)
    mul(norm, norm, alpha)
    add(norm, norm, bias)            -- norm = N
    cmul(scratch, g, lrn_out)
    cdiv(scratch, scratch, norm)     -- scratch = g y / N
    window_sum(out, scratch, radius)
    cmul(out, out, src)
    mul(out, out, -2 * alpha * beta)
    pow(norm, norm, -beta)
    cmul(scratch, g, norm)
    add(out, out, scratch)
  end
end
