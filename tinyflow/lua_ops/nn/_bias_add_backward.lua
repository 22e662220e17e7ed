-- _bias_add_backward: y = g = x[1] summed over every axis but the channel axis (NCHW: axis 1,
-- else the last); x[2], the bias, gives only the shape
return function(x, y, kwarg)
  local g, out, sum = x[1], y[1], torch.sum
  local rank, channel = torch.dim(g), torch.dim(g)
  if kwarg.data_format == "NCHW" then channel = 2 end
  local dims = {}
  for d = 1, rank do
    if d ~= channel then dims[#dims + 1] = d end
  end
  return function() sum(out, g, dims) end
end
