-- shape_of: y = the sizes of x[1] (known at bind time; x's values are not read)
return function(x, y, kwarg)
  local sizes = torch.shape(x[1])
  local copy, out, value = torch.copy, y[1], torch.tensor_like(y[1], sizes, {#sizes})
  return function() copy(out, value) end
end
