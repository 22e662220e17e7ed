-- embedding_lookup: y = the rows of params x[1] at ids x[2] (any dtype), y.shape = ids.shape +
-- params.shape[1:]
return function(x, y, kwarg)
  local params, ids, out = x[1], x[2], y[1]
  local index, lookup = kernels.ids_buffer(ids), kernels.embedding_lookup
  return function() lookup(out, params, ids, index) end
end
