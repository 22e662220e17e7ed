-- _top_k_backward: y = zeros of x[3]'s shape with g = x[1] put at the indices x[2] (int32) along
-- the last axis (TensorFlow's gradient of TopKV2: the chosen entries get it)
return function(x, y, kwarg)
  local g, indices, out = x[1], x[2], y[1]
  local top_k_backward, index = kernels.top_k_backward, torch.index_like(x[2])
  return function() top_k_backward(out, g, indices, index) end
end
