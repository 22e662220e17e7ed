-- unique: y[1] = x[1]'s distinct elements in the order they first occur, y[2] = each element's
-- position among them, y[3] = their counts; y[1] and y[3] are sized as it runs
-- (TShapeAtRunTime: kernels.unique gives them new storage, checked with kwarg.check_fits)
return function(x, y, kwarg)
  local unique, src, fits = kernels.unique, x[1], kwarg.check_fits
  local values, positions, counts = y[1], y[2], y[3]
  return function() unique(values, positions, counts, src, fits) end
end
