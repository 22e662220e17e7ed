-- dropout: y[2] = mask, 1 / keep_prob with probability keep_prob (x[2], a scalar) else 0, drawn
-- anew every step; y[1] = x * mask
return function(x, y, kwarg)
  local dropout, data, keep_prob, out, mask = torch.dropout, x[1], x[2], y[1], y[2]
  return function() dropout(out, mask, data, keep_prob) end
end
