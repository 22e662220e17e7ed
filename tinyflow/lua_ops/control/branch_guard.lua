-- branch_guard: y = (x == kwarg.branch), x a bool scalar (a tf.cond's predicate)
return function(x, y, kwarg)
  local copy, lnot, pred, out = torch.copy, torch.logical_not, x[1], y[1]
  if kwarg.branch then return function() copy(out, pred) end end
  return function() lnot(out, pred) end
end
