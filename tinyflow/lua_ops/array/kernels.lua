-- Lua kernels of the array bodies, added to their kernels table (runtime.py runs this file once).
local torch, kernels = ...
-- concat / split: the stretch of ``whole`` along 1-based dim each of ``parts`` takes (as many
-- elements as the part has), and each part viewed in that stretch's shape: (stretches, views)
function kernels.stretches(whole, parts, dim)
  local total, size = torch.numel(whole), torch.size(whole, dim)
  local stretches, views, start = {}, {}, 1
  for i = 1, #parts do
    local share = total == 0 and 0 or torch.numel(parts[i]) / total
    local length = math.floor(share * size + 0.5)
    stretches[i] = torch.narrow(whole, dim, start, length)
    views[i] = torch.view(parts[i], torch.shape(stretches[i]))
    start = start + length
  end
  return stretches, views
end
