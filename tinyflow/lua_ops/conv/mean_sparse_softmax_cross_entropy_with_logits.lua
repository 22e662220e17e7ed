-- mean_sparse_softmax_cross_entropy_with_logits: y = mean over the batch of
-- -log softmax(logits)[label], labels x[2] holding class ids as floats; a label outside
-- [0, classes) (NaN included) is an error saying what labels must be
return function(x, y, kwarg)
  local logits, labels, out = x[1], x[2], y[1]
  local losses = torch.empty(logits, {torch.size(logits, 1)})
  local log_probs, index = torch.empty_like(logits), kernels.ids_buffer(labels, true)
  local xent, mean = kernels.sparse_xent, torch.mean
  return function()
    xent(losses, logits, labels, log_probs, index)
    mean(out, losses)
  end
end
