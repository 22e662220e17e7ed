-- mean_sparse_softmax_cross_entropy_with_logits: y = mean over the batch of
-- -log softmax(logits)[label], labels x[2] holding class ids as floats
return function(x, y, kwarg)
  local loss, logits, labels, out = torch.sparse_softmax_cross_entropy, x[1], x[2], y[1]
  local log_probs, index, total_weight =
    torch.empty_like(logits), torch.index_like(labels), torch.empty_like(out)
  return function() loss(out, logits, labels, log_probs, index, total_weight) end
end
