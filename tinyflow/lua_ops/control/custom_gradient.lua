-- custom_gradient: y[i] = x[i] for each result (the gradient rule is where it differs)
return function(x, y, kwarg)
  local copy = torch.copy
  return function()
    for i = 1, #y do copy(y[i], x[i]) end
  end
end
