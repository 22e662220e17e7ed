-- while_loop: the loop variables x[1..n] through subgraph body while subgraph cond gives true
-- (x[n+1..]: the tensors they capture).  kwarg.cond and kwarg.body are the subgraphs bound as
-- executors of their own (tinyflow/executor/subgraphs.py): {closures, count, names, inputs,
-- outputs}, inputs by position (nil where the subgraph does not read that input).  The
-- current values live in y; kwarg.state.record (set when a backward node reads this loop)
-- keeps each iteration's loop variables in kwarg.state.history for it (those in
-- kwarg.state.needed only, when the backward says which it reads), then the intermediates
-- its gradient reads (the body's outputs kwarg.state.kept_first..kept_last, when the backward
-- asked for them: TKeep), so that it need not compute them again.  A carried loop variable
-- (the body's plan writes its input in place into its output: a TensorArray's write) lives in
-- the body's input buffer across iterations, copied in once and out once, not per iteration.
-- kwarg.varying (set when loop variables change shape, their y[j] tensors of their own):
-- every variable moved, resized as it is copied, and kwarg.bind_at(now) gives the subgraphs
-- bound at the variables' shapes when these changed (nil when they did not); one the body
-- wrote in place into its input buffer stays there (held) until the shapes change.
return function(x, y, kwarg)
  local cond, body, state = kwarg.cond, kwarg.body, kwarg.state
  local n, limit, varying = kwarg.num_vars, kwarg.maximum_iterations, kwarg.varying
  local copy, truth, keep = torch.copy, kernels.truth, kernels.keep
  local set = varying and kernels.resize_copy or copy  -- into a loop variable's own tensor
  local cond_in, body_in, body_out, pred = cond.inputs, body.inputs, body.outputs, cond.outputs[1]
  local now, moved, carried, is_carried = {}, {}, 0, {}  -- now[j]: where variable j's value lives between runs
  for j = 1, n do
    if not varying and body_in[j] ~= nil and torch.same_memory(body_in[j], body_out[j]) then
      now[j] = body_in[j]; carried = carried + 1; is_carried[j] = true
    else
      now[j] = y[j]; moved[#moved + 1] = j
    end
  end
  state.carried = carried
  -- a moved variable the body reads takes its next value straight into its input buffer (one
  -- copy per iteration, not two through y) where no other output shares that buffer's memory
  -- (not varying: the buffers change with the shapes)
  local direct
  direct, moved = kernels.direct_inputs(moved, body_in, 0, body_out, n, not varying)
  for _, j in ipairs(direct) do now[j] = body_in[j]; is_carried[j] = true end
  local run_subgraph = kernels.run_subgraph
  local function run(sub) run_subgraph(sub, "a loop iteration") end
  local function load(dst, first, last, src, offset)  -- dst[i] = src[i + offset] where read
    for i = first, last do
      local b = dst[i]
      if b ~= nil then copy(b, src[i + offset]) end
    end
  end
  local function remember(trip, needed)  -- the loop variables the backward reads (all: nil)
    local kept = state.history[trip]
    if kept == nil then kept = {}; state.history[trip] = kept end
    for j = 1, n do
      if needed == nil or needed[j] then kept[j] = keep(kept[j], now[j]) end
    end
  end
  local function remember_kept(trip)  -- after the body ran: its outputs past the loop's
    local kept = state.history[trip]
    for s = state.kept_first, state.kept_last do kept[s] = keep(kept[s], body_out[s]) end
  end
  local held = {}  -- varying: held[j] when variable j lives in body_in[j] (written in place)
  local function rebind()  -- the subgraphs bound at the loop variables' shapes now
    local bound = kwarg.bind_at(now)
    if bound == nil then return end
    for j = 1, n do  -- out of the buffers of the subgraphs bound before
      if held[j] then set(y[j], now[j]); now[j] = y[j]; held[j] = false end
    end
    cond, body = bound.cond, bound.body
    cond_in, body_in, body_out, pred = cond.inputs, body.inputs, body.outputs, cond.outputs[1]
    load(cond_in, n + 1, #x, x, 0)
    load(body_in, n + 1, #x, x, 0)
  end
  return function()
    for j = 1, n do
      if held[j] then now[j] = y[j]; held[j] = false end
      set(now[j], x[j])
    end
    load(cond_in, n + 1, #x, x, 0)
    load(body_in, n + 1, #x, x, 0)
    local trips, record = 0, state.record
    while limit < 0 or trips < limit do
      if varying then rebind() end
      load(cond_in, 1, n, now, 0)
      run(cond)
      if not truth(pred) then break end
      trips = trips + 1
      if record then remember(trips, state.needed) end
      for _, j in ipairs(moved) do
        if body_in[j] ~= nil and not held[j] then copy(body_in[j], y[j]) end
      end
      run(body)
      if record and state.kept_first ~= nil then remember_kept(trips) end
      for _, j in ipairs(moved) do
        if varying and body_in[j] ~= nil and torch.same_memory(body_in[j], body_out[j]) then
          held[j] = true; now[j] = body_in[j]
        else
          set(y[j], body_out[j]); held[j] = false; now[j] = y[j]
        end
      end
      for _, j in ipairs(direct) do copy(body_in[j], body_out[j]) end
    end
    for j = 1, n do
      if is_carried[j] or held[j] then set(y[j], now[j]) end
    end
    state.trips = trips
  end
end
