-- _reduce_prod_backward: y = gradient of prod(x[2]) over kwarg.axis given its gradient x[1]
return function(x, y, kwarg)
  local prod_backward, g, src, out = kernels.prod_backward, x[1], x[2], y[1]
  local dims = torch.dims_of(kwarg.axis)
  return function() prod_backward(out, g, src, dims) end
end
