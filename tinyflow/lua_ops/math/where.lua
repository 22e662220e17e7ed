-- where: y = x[2] where x[1] (bool) else x[3]
return function(x, y, kwarg)
  local where, cond, a, b, out = torch.where, x[1], x[2], x[3], y[1]
  return function() where(out, cond, a, b) end
end
