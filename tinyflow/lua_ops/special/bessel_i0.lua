-- bessel_i0: y = bessel_i0(x) (kernels.bessel_i0: PyTorch's special function)
return function(x, y, kwarg)
  local bessel_i0, a, out = kernels.bessel_i0, x[1], y[1]
  return function() bessel_i0(out, a) end
end
