-- tensor_array_grow: y[1] = the elements x[1] (capacity rows, x[2] of them written) with rows
-- x[3] (an int scalar or vector) set to x[4], its capacity doubled (at least) when an index
-- lies past it (y[1] is a tensor of its own: TShapeAtRunTime); y[2] = the rows written now.
-- kwarg.check_fits(bytes) refuses a capacity the device cannot hold, naming the node; with
-- kwarg.in_place (x[1] is a loop variable read by it alone), y[1] is x[1] while it fits.
return function(x, y, kwarg)
  local grow, elements, count, index, value = kernels.grow, x[1], x[2], x[3], x[4]
  local out, written, check, in_place = y[1], y[2], kwarg.check_fits, kwarg.in_place
  return function() grow(out, written, elements, count, index, value, check, in_place) end
end
