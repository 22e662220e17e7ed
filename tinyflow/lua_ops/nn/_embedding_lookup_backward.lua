-- _embedding_lookup_backward: y = zeros of params' shape with the rows of g = x[1] added at ids
-- x[3] (repeated ids sum); x[2], params, gives only the shape
return function(x, y, kwarg)
  local g, ids, out = x[1], x[3], y[1]
  local index, backward = kernels.ids_buffer(ids), kernels.embedding_lookup_backward
  return function() backward(out, g, ids, index) end
end
