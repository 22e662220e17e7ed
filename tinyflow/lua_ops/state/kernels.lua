-- Lua kernels of the variable-state bodies, added to their kernels table (runtime.py runs this
-- file once).
local torch, kernels = ...
-- scatter_update / _add / _sub: indices flattened, and updates as one row of var per index
-- (updates of shape indices.shape + the row shape, or a scalar, expanded)
function kernels.scatter_rows(var, indices, updates)
  local count = torch.numel(indices)
  local sizes = torch.shape(var)
  sizes[1] = count
  local rows = torch.dim(updates) == 0 and torch.expand(updates, sizes)
    or torch.view(updates, sizes)
  return torch.view(indices, {count}), rows
end
