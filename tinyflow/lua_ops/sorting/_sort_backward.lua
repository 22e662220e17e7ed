-- _sort_backward: y[1][..., i[k], ...] = g[..., k, ...] along kwarg.axis, g = x[1], i = x[2]
-- (kwarg.gather: y[1][..., k, ...] = g[..., i[k], ...]); kernels.sort_backward checks i
return function(x, y, kwarg)
  local put, out, g, indices = kernels.sort_backward, y[1], x[1], x[2]
  local axis, gather = kwarg.axis or -1, kwarg.gather or false
  return function() put(out, g, indices, axis, gather) end
end
