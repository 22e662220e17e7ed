-- log: y = log(x)
return function(x, y, kwarg)
  local log, a, out = torch.log, x[1], y[1]
  return function() log(out, a) end
end
