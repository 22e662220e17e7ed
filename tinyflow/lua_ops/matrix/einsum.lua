-- einsum: y = torch.einsum(kwarg.equation, x...) (kernels.einsum copies it into y)
return function(x, y, kwarg)
  local einsum, out, equation = kernels.einsum, y[1], kwarg.equation
  return function() einsum(out, equation, unpack(x)) end
end
