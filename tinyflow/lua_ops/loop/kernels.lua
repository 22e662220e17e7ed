-- Lua kernels of the loop bodies, added to their kernels table (runtime.py runs this file once).
local torch, kernels = ...
-- a subgraph's closures in order ({closures, count, names}); an error names the node and
-- ``where`` it failed ("a loop iteration", "a loop's gradient", "a tf.cond branch")
function kernels.run_subgraph(sub, where)
  local fs, names = sub.closures, sub.names
  for i = 1, sub.count do
    local ok, err = pcall(fs[i])
    if not ok then error(names[i] .. " failed in " .. where .. ": " .. tostring(err), 0) end
  end
end
-- of the loop variables (or gradients) ``moved`` (carried through y), those whose next value
-- may go straight into their input buffer inputs[j + offset], one copy per iteration, not two
-- through y: a buffer there (and ``fixed``: not rebound as shapes change) that none of the
-- other outputs[1..count] shares memory with; returns (direct, the rest)
function kernels.direct_inputs(moved, inputs, offset, outputs, count, fixed)
  local direct, through_y = {}, {}
  for _, j in ipairs(moved) do
    local head = inputs[j + offset]
    local clash = not fixed or head == nil
    for k = 1, count do
      if not clash and k ~= j and outputs[k] ~= nil and torch.same_memory(outputs[k], head) then
        clash = true
      end
    end
    if clash then through_y[#through_y + 1] = j else direct[#direct + 1] = j end
  end
  return direct, through_y
end
