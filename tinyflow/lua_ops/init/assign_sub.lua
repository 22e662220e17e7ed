-- assign_sub: the variable x[1] <- x[1] - x[2]; y[1] is that variable's memory
return function(x, y, kwarg)
  local csub, var, value = torch.csub, y[1], x[2]
  return function() csub(var, var, value) end
end
