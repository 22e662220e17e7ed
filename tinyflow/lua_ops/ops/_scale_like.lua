-- _scale_like: y = x * numel(x[3]) / numel(x[2])
return function(x, y, kwarg)
  local mul, src, out = torch.mul, x[1], y[1]
  local scale = torch.numel(x[3]) / torch.numel(x[2])
  return function() mul(out, src, scale) end
end
