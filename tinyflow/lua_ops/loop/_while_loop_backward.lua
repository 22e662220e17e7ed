-- _while_loop_backward: x = the forward's outputs (n), its captured tensors (m), the gradients
-- of its outputs (n); y = the gradients of its first loop variables (n), then of the captured
-- tensors (m).  Subgraph kwarg.grad_body (inputs: loop variables, captured, gradients of the
-- body's outputs; outputs: gradients of the body's inputs) runs once per iteration the forward
-- kept in kwarg.state.history (shared with the forward node), last first; the captured
-- tensors' gradients add up over the iterations.
return function(x, y, kwarg)
  local grad, state = kwarg.grad_body, kwarg.state
  local n, m = kwarg.num_vars, kwarg.num_captured
  local copy, add, zero = torch.copy, torch.add, torch.zero
  local gin, gout = grad.inputs, grad.outputs
  local function run(sub)
    local fs, names = sub.closures, sub.names
    for i = 1, sub.count do
      local ok, err = pcall(fs[i])
      if not ok then error(names[i] .. " failed in a loop's gradient: " .. tostring(err), 0) end
    end
  end
  return function()
    for j = 1, n do copy(y[j], x[n + m + j]) end
    for k = n + 1, n + m do
      zero(y[k])
      if gin[k] ~= nil then copy(gin[k], x[k]) end
    end
    local history = state.history
    for trip = state.trips, 1, -1 do
      local kept = history[trip]
      for j = 1, n do
        if gin[j] ~= nil then copy(gin[j], kept[j]) end
        if gin[n + m + j] ~= nil then copy(gin[n + m + j], y[j]) end
      end
      run(grad)
      for j = 1, n do copy(y[j], gout[j]) end
      for k = n + 1, n + m do add(y[k], y[k], gout[k]) end
    end
  end
end
