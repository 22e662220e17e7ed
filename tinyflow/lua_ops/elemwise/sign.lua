-- sign: y = sign(x)
return function(x, y, kwarg)
  local sign, a, out = torch.sign, x[1], y[1]
  return function() sign(out, a) end
end
