-- log1p: y = log1p(x)
return function(x, y, kwarg)
  local log1p, a, out = torch.log1p, x[1], y[1]
  return function() log1p(out, a) end
end
