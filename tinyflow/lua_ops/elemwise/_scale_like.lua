-- _scale_like: y = x / (numel(x[2]) / numel(x[3])), the count a mean divided by (exactly as
-- the forward divides: g / N, not g * (1 / N), which can differ by one float step)
return function(x, y, kwarg)
  local div, src, out = torch.div, x[1], y[1]
  local count = torch.numel(x[2]) / torch.numel(x[3])
  return function() div(out, src, count) end
end
