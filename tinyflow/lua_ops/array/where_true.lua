-- where_true: y[1] = the coordinates of x[1]'s true (nonzero) elements, int64 [count, rank],
-- row-major.  Its shape is known once it ran (TShapeAtRunTime): y[1] is a tensor of its own,
-- which kernels.nonzero resizes (at most x's element count x rank entries).
return function(x, y, kwarg)
  local nonzero, cond, out = kernels.nonzero, x[1], y[1]
  return function() nonzero(out, cond) end
end
