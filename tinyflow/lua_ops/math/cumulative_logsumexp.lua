-- cumulative_logsumexp: y = running log(sum(exp(x))) along kwarg.axis; kwarg.exclusive:
-- shifted one place, the first being -inf; kwarg.reverse: from the end (kernels.running)
return function(x, y, kwarg)
  return kernels.running(kernels.logcumsumexp, -math.huge, x, y, kwarg)
end
