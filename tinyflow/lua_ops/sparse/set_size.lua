-- set_size: y[1] = how many distinct values each leading coordinate of the sparse tensor
-- (indices x[1], values x[2], dense shape x[3]) holds, int32; sized as it runs
return function(x, y, kwarg)
  local size, fits, parts = kernels.set_size, kwarg.check_fits, {x[1], x[2], x[3]}
  return function() size(y[1], parts, fits) end
end
