-- concat (also stack's body): y = the inputs laid end to end along y's axis kwarg.axis; each
-- input fills the stretch of y its elements take (a stacked input's stretch has length 1)
return function(x, y, kwarg)
  local copy = torch.copy
  local stretches, sources = kernels.stretches(y[1], x, torch.dim_of(kwarg.axis))
  return function()
    for i = 1, #stretches do copy(stretches[i], sources[i]) end
  end
end
