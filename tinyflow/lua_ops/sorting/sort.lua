-- sort: y[1] = x[1] sorted along kwarg.axis (descending with kwarg.descending), equal elements
-- in their order; y[2] = the int32 indices they came from (kernels.sort: torch's stable sort)
return function(x, y, kwarg)
  local sort, values, indices, src = kernels.sort, y[1], y[2], x[1]
  local axis, descending = kwarg.axis or -1, kwarg.descending or false
  return function() sort(values, indices, src, axis, descending) end
end
