-- lstm_block: TensorFlow's BasicLSTMCell over T steps.  x [T, B, D], c0, h0 [B, H], kernel
-- [D + H, 4H] (gates i, j, f, o), bias [4H]; outputs h, c [T, B, H], the gates' activations
-- [T, B, 4H] (sigmoid(i), tanh(j), sigmoid(f + forget_bias), sigmoid(o)) and tanh(c).
-- As TF's cell, each step is one GEMM [x_t, h_{t-1}] @ kernel + bias (K = D + H) on a row
-- buffer [B, D + H] that step t - 1 filled (h_{t-1} and x_t).  The gates' activations are
-- computed from the GEMM's result straight into their rows of the hidden output
-- (kernels.gates_function); c_t, tanh(c_t) and h_t go into their rows of the outputs.  (A
-- projection of all steps' x first, then h @ W_h added to its slice of it, read 256 KB a step
-- out of cache: 1.2 ms slower a run, one thread.)  The outputs kwarg.one_step lists (0-based:
-- 1 c, 2 gates, 3 tanh(c); KeepOneStep, when nothing reads them) have one row, every step's.
return function(x, y, kwarg)
  local narrow, view = torch.narrow, torch.view
  local one_row = {}
  for _, k in ipairs(kwarg.one_step or {}) do one_row[k + 1] = true end
  local function row_of(k, t) return one_row[k] and 1 or t end  -- output y[k]'s row of step t
  local steps, batch, depth = torch.size(x[1], 1), torch.size(x[1], 2), torch.size(x[1], 3)
  local units = torch.size(x[2], 2)
  local kernel, acts, width = x[4], y[3], depth + units
  local kernel_t = torch.empty(kernel, {4 * units, width})  -- kernel^T, contiguous: oneDNN's
  local bias = torch.empty(kernel, {4 * units})             -- with forget_bias added to f's
  local forget_bias = narrow(bias, 1, 2 * units + 1, units)
  local row = torch.empty(kernel, {batch, width})          -- [x_t, h_{t-1}] of the step
  local x_columns, h_columns = narrow(row, 2, 1, depth), narrow(row, 2, depth + 1, units)
  local gates, i, j, f, o, c, h, c_prev, x_t = {}, {}, {}, {}, {}, {}, {}, {}, {}
  local tanh_c, tanh_of_c = {}, {}
  for t = 1, steps do
    local step = view(narrow(acts, 1, row_of(3, t), 1), {batch, 4 * units})
    x_t[t] = view(narrow(x[1], 1, t, 1), {batch, depth})
    gates[t] = kernels.gates_function(step, row, kernel_t, bias, units)
    i[t], j[t] = narrow(step, 2, 1, units), narrow(step, 2, units + 1, units)
    f[t], o[t] = narrow(step, 2, 2 * units + 1, units), narrow(step, 2, 3 * units + 1, units)
    c[t], h[t] = view(narrow(y[2], 1, row_of(2, t), 1), {batch, units}), view(narrow(y[1], 1, t, 1), {batch, units})
    tanh_c[t] = view(narrow(y[4], 1, row_of(4, t), 1), {batch, units})
    tanh_of_c[t] = kernels.tanh_function(tanh_c[t], c[t])
    c_prev[t] = t == 1 and x[2] or c[t - 1]
  end
  local kernel_rows_t = torch.t(kernel)
  local add, addcmul, copy, cmul = torch.add, torch.addcmul, torch.copy, torch.cmul
  local forget = kwarg.forget_bias or 1.0
  return function()
    copy(kernel_t, kernel_rows_t)
    copy(bias, x[5])
    add(forget_bias, forget_bias, forget)
    copy(h_columns, x[3])
    for t = 1, steps do
      copy(x_columns, x_t[t])
      gates[t]()
      cmul(c[t], f[t], c_prev[t])
      addcmul(c[t], c[t], i[t], j[t])
      tanh_of_c[t]()
      cmul(h[t], tanh_c[t], o[t])
      if t < steps then copy(h_columns, h[t]) end
    end
  end
end
