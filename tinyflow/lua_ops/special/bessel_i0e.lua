-- bessel_i0e: y = bessel_i0e(x) (kernels.bessel_i0e: PyTorch's special function)
return function(x, y, kwarg)
  local bessel_i0e, a, out = kernels.bessel_i0e, x[1], y[1]
  return function() bessel_i0e(out, a) end
end
