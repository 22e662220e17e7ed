-- sparse_softmax_cross_entropy_with_logits: y = -log_softmax(logits)[label] per example, logits
-- x[1] (..., classes), labels x[2] (...) holding class ids of any dtype, in [0, classes)
return function(x, y, kwarg)
  local logits, labels, out = x[1], x[2], y[1]
  local log_probs, index = torch.empty_like(logits), kernels.ids_buffer(labels, true)
  local xent = kernels.sparse_xent
  return function() xent(out, logits, labels, log_probs, index) end
end
