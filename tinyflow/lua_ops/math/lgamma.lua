-- lgamma: y = lgamma(x)
return function(x, y, kwarg)
  local lgamma, a, out = torch.lgamma, x[1], y[1]
  return function() lgamma(out, a) end
end
