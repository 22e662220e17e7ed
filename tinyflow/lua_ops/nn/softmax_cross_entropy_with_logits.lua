-- softmax_cross_entropy_with_logits: y = -sum(labels * log_softmax(logits)) along kwarg.axis,
-- logits x[1] and labels x[2] of one shape
return function(x, y, kwarg)
  local logits, labels, out = x[1], x[2], y[1]
  local dim = torch.dim_of(kwarg.axis or -1)
  local log_probs = torch.empty_like(logits)
  local log_softmax, cmul, sum, neg = torch.log_softmax, torch.cmul, torch.sum, torch.neg
  return function()
    log_softmax(log_probs, logits, dim)
    cmul(log_probs, log_probs, labels)
    sum(out, log_probs, dim)
    neg(out, out)
  end
end
