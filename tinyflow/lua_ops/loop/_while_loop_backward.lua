-- _while_loop_backward: x = the forward's outputs (n), its captured tensors (m), the gradients
-- of its outputs (n); y = the gradients of its first loop variables (n), then of the captured
-- tensors (m).  Subgraph kwarg.grad_body (inputs: loop variables, captured, gradients of the
-- body's outputs; outputs: gradients of the body's inputs) runs once per iteration the forward
-- kept in kwarg.state.history (shared with the forward node), last first; the captured
-- tensors' gradients add up over the iterations.  A carried gradient (grad_body's plan writes
-- its input in place into its output: a TensorArray write's gradient) stays in that input
-- buffer across iterations, copied in once and out once.  kwarg.kept_at (TKeep): grad_body's
-- inputs past those are the body's intermediates, input 2n+m+k kept at kwarg.kept_at[k] of an
-- iteration's history (nil: grad_body recomputes them).  kwarg.varying (the forward's loop
-- variables change shape): each gradient lives in a tensor of its own, resized as the
-- iterations' shapes go, and kwarg.bind_at(kept, now) gives grad_body bound at them.
return function(x, y, kwarg)
  local grad, state = kwarg.grad_body, kwarg.state
  local n, m, varying = kwarg.num_vars, kwarg.num_captured, kwarg.varying
  local copy, add, zero = torch.copy, torch.add, torch.zero
  local set = varying and kernels.resize_copy or copy
  local gin, gout = grad and grad.inputs or {}, grad and grad.outputs  -- varying: bound later
  local kept_at = kwarg.kept_at or {}
  local kept_count = #kept_at
  local now, moved, is_carried, carried = {}, {}, {}, 0  -- now[j]: gradient j between runs
  for j = 1, n do
    local b = gin[n + m + j]
    if varying then
      now[j] = torch.empty_like(y[j]); moved[#moved + 1] = j; is_carried[j] = true
    elseif b ~= nil and torch.same_memory(b, gout[j]) then
      now[j] = b; is_carried[j] = true; carried = carried + 1
    else
      now[j] = y[j]; moved[#moved + 1] = j
    end
  end
  state.carried_gradients = carried
  -- as while_loop.lua: a moved gradient goes straight into its head's buffer where it can
  local direct
  direct, moved = kernels.direct_inputs(moved, gin, n + m, gout, n + m, true)
  for _, j in ipairs(direct) do now[j] = gin[n + m + j]; is_carried[j] = true end
  local run_subgraph = kernels.run_subgraph
  local function run(sub) run_subgraph(sub, "a loop's gradient") end
  local function rebind(kept)  -- grad_body bound at this iteration's shapes
    local bound = kwarg.bind_at(kept, now)
    if bound == nil then return end
    grad = bound.grad_body
    gin, gout = grad.inputs, grad.outputs
    for k = n + 1, n + m do
      if gin[k] ~= nil then copy(gin[k], x[k]) end
    end
  end
  return function()
    for j = 1, n do set(now[j], x[n + m + j]) end
    for k = n + 1, n + m do
      zero(y[k])
      if gin[k] ~= nil then copy(gin[k], x[k]) end
    end
    local history = state.history
    for trip = state.trips, 1, -1 do
      local kept = history[trip]
      if varying then rebind(kept) end
      for j = 1, n do
        if gin[j] ~= nil then copy(gin[j], kept[j]) end
      end
      for k = 1, kept_count do
        local b = gin[2 * n + m + k]
        if b ~= nil then copy(b, kept[kept_at[k]]) end
      end
      for _, j in ipairs(moved) do
        if gin[n + m + j] ~= nil then copy(gin[n + m + j], now[j]) end
      end
      run(grad)
      for _, j in ipairs(moved) do set(now[j], gout[j]) end
      for _, j in ipairs(direct) do copy(gin[n + m + j], gout[j]) end
      for k = n + 1, n + m do
        if gout[k] ~= nil then add(y[k], y[k], gout[k]) end  -- nil: nothing reads it
      end
    end
    for j = 1, n do
      if is_carried[j] then copy(y[j], now[j]) end
    end
  end
end
