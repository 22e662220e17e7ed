-- concat (also stack's body): y = the inputs laid end to end along y's axis kwarg.axis; each
-- input fills the stretch of y its elements take (a stacked input's stretch has length 1)
return function(x, y, kwarg)
  local out, copy = y[1], torch.copy
  local dim, total = torch.dim_of(kwarg.axis), torch.numel(y[1])
  local pieces, sources, start = {}, {}, 1
  for i = 1, #x do
    local share = total == 0 and 0 or torch.numel(x[i]) / total
    local length = math.floor(share * torch.size(out, dim) + 0.5)
    pieces[i] = torch.narrow(out, dim, start, length)
    sources[i] = torch.view(x[i], torch.shape(pieces[i]))
    start = start + length
  end
  return function()
    for i = 1, #pieces do copy(pieces[i], sources[i]) end
  end
end
