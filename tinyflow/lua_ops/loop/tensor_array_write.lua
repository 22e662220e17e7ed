-- tensor_array_write: y = x[1] with rows x[2] (an int scalar or vector) set to x[3]; in place
-- when the plan gives y x[1]'s memory.  An index outside the array is TF's error.
return function(x, y, kwarg)
  local buffer, index, out = x[1], x[2], y[1]
  local count = torch.numel(index)
  local flat = torch.view(index, {count})
  local rows = torch.index_like(flat)  -- int64, as index_copy takes
  local sizes = torch.shape(buffer)
  sizes[1] = count
  local value = torch.view(x[3], sizes)
  local in_place = torch.same_memory(buffer, out)
  local copy, refused = torch.copy, kernels.write_refused
  local index_copy = kernels.gpu_checked(torch.index_copy, rows, 3, torch.size(buffer, 1),
    "indices")  -- on a GPU: refused says TensorFlow's text
  return function()
    if not in_place then copy(out, buffer) end
    copy(rows, flat)
    local ok, err = pcall(index_copy, out, 1, rows, value)
    if not ok then refused(rows, out, err) end  -- TF's error for an index past its size
  end
end
