-- abs: y = |x|
return function(x, y, kwarg)
  local abs, a, out = torch.abs, x[1], y[1]
  return function() abs(out, a) end
end
