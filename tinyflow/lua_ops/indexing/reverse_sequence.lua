-- reverse_sequence: y = x[1] with each batch entry's first x[2][b] steps reversed
return function(x, y, kwarg)
  local out, src, lengths = y[1], x[1], x[2]
  local seq_axis, batch_axis, reverse = kwarg.seq_axis, kwarg.batch_axis, kernels.reverse_sequence
  return function() reverse(out, src, lengths, seq_axis, batch_axis) end
end
