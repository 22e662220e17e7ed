-- _polygamma: y = polygamma(kwarg.order, x)
return function(x, y, kwarg)
  local polygamma, order, a, out = torch.polygamma, kwarg.order, x[1], y[1]
  return function() polygamma(out, order, a) end
end
