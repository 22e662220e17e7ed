-- ctc_loss: y[1] = each example's negative log probability, y[2] = its gradient by the logits
-- x[1] [T, B, C] (the last class the blank), from labels x[2] [B, L] of lengths x[3] and the
-- sequences' lengths x[4] (kernels.ctc_loss: torch's CTC, the indices checked on the host)
return function(x, y, kwarg)
  local ctc, ignore = kernels.ctc_loss, kwarg.ignore_longer_outputs_than_inputs or false
  return function() ctc(y[1], y[2], x[1], x[2], x[3], x[4], ignore) end
end
