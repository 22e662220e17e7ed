-- branch_input: y = x (a bound graph reads x itself, TSameShapeIdentity: this runs only where
-- the node is fetched or waited on; the gradient rule is where it differs)
return function(x, y, kwarg)
  local copy, a, out = torch.copy, x[1], y[1]
  return function() copy(out, a) end
end
