-- exp: y = e ^ x
return function(x, y, kwarg)
  local exp, a, out = torch.exp, x[1], y[1]
  return function() exp(out, a) end
end
