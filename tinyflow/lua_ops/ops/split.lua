-- split (also unstack's and _concat_backward's body): y[i] = the i-th stretch of x[1] along
-- kwarg.axis, as long as y[i]'s elements take (an unstacked piece's stretch has length 1)
return function(x, y, kwarg)
  local src, copy = x[1], torch.copy
  local dim, total = torch.dim_of(kwarg.axis), torch.numel(x[1])
  local pieces, targets, start = {}, {}, 1
  for i = 1, #y do
    local share = total == 0 and 0 or torch.numel(y[i]) / total
    local length = math.floor(share * torch.size(src, dim) + 0.5)
    pieces[i] = torch.narrow(src, dim, start, length)
    targets[i] = torch.view(y[i], torch.shape(pieces[i]))
    start = start + length
  end
  return function()
    for i = 1, #pieces do copy(targets[i], pieces[i]) end
  end
end
