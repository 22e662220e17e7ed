-- _allreduce: y[1] = x[1] summed over every rank (divided by their number with kwarg.average),
-- in place when the plan gives y[1] x[1]'s memory
return function(x, y, kwarg)
  local all_reduce, res, src = kernels.all_reduce, y[1], x[1]
  local average, label = kwarg.average, kwarg.label
  local fingerprint = kernels.collective_check("allreduce", label, res)
  return function() all_reduce(res, src, average, label, fingerprint) end
end
