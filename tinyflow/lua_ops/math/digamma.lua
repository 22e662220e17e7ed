-- digamma: y = digamma(x)
return function(x, y, kwarg)
  local digamma, a, out = torch.digamma, x[1], y[1]
  return function() digamma(out, a) end
end
