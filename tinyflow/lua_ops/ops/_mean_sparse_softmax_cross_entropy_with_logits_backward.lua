-- _mean_sparse_softmax_cross_entropy_with_logits_backward: y = (softmax(logits) - onehot(labels))
-- * g / batch from g = x[1], logits = x[2], labels = x[3]
return function(x, y, kwarg)
  local backward, g, logits, out = torch.sparse_softmax_cross_entropy_backward, x[1], x[2], y[1]
  local labels = torch.view(x[3], {torch.size(x[3], 1), 1})
  local index, minus_ones = torch.index_like(labels), torch.full_like(labels, -1)
  return function() backward(out, g, logits, labels, index, minus_ones) end
end
