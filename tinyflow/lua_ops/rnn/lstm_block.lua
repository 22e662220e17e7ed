-- lstm_block: TensorFlow's BasicLSTMCell over T steps.  x [T, B, D], c0, h0 [B, H], kernel
-- [D + H, 4H] (gates i, j, f, o), bias [4H]; outputs h, c [T, B, H], the gates' activations
-- [T, B, 4H] (sigmoid(i), tanh(j), sigmoid(f + forget_bias), sigmoid(o)) and tanh(c).
-- The input projections x_t @ W_x + bias of all steps are one GEMM into the gates' buffer
-- ([T*B, D] @ [D, 4H]); each step then adds h_{t-1} @ W_h to its slice and applies the gates'
-- functions in place, writing c_t and h_t into their rows of the outputs: no copies.  The
-- GEMMs are matmul's (kernels.mm_function: oneDNN's or MKL's, the faster for the shapes).
return function(x, y, kwarg)
  local narrow, view, gemm = torch.narrow, torch.view, kernels.mm_function
  local steps, batch, depth = torch.size(x[1], 1), torch.size(x[1], 2), torch.size(x[1], 3)
  local units = torch.size(x[2], 2)
  local kernel, acts = x[4], y[3]
  local w_h_t = torch.empty(kernel, {4 * units, units})  -- W_h^T, contiguous: oneDNN's layout
  local w_h, w_h_rows = torch.t(w_h_t), torch.t(narrow(kernel, 1, depth + 1, units))
  local bias = torch.empty(kernel, {4 * units})            -- with forget_bias added to f's
  local forget_bias = narrow(bias, 1, 2 * units + 1, units)
  local all_gates = view(acts, {steps * batch, 4 * units})
  local project = gemm(all_gates, view(x[1], {steps * batch, depth}), narrow(kernel, 1, 1, depth))
  local product = torch.empty(kernel, {batch, 4 * units})  -- h_{t-1} @ W_h
  local steps_gemm, gates, i, j, f, o, c, h, c_prev, tanh_c = {}, {}, {}, {}, {}, {}, {}, {}, {}, {}
  for t = 1, steps do
    gates[t] = view(narrow(acts, 1, t, 1), {batch, 4 * units})
    i[t], j[t] = narrow(gates[t], 2, 1, units), narrow(gates[t], 2, units + 1, units)
    f[t] = narrow(gates[t], 2, 2 * units + 1, units)
    o[t] = narrow(gates[t], 2, 3 * units + 1, units)
    c[t], h[t] = view(narrow(y[2], 1, t, 1), {batch, units}), view(narrow(y[1], 1, t, 1), {batch, units})
    tanh_c[t] = view(narrow(y[4], 1, t, 1), {batch, units})
    c_prev[t] = t == 1 and x[2] or c[t - 1]
    steps_gemm[t] = gemm(product, t == 1 and x[3] or h[t - 1], w_h)
  end
  local add, addcmul, copy, cmul = torch.add, torch.addcmul, torch.copy, torch.cmul
  local sigmoid, tanh = torch.sigmoid, torch.tanh
  local forget = kwarg.forget_bias or 1.0
  return function()
    copy(w_h_t, w_h_rows)
    copy(bias, x[5])
    add(forget_bias, forget_bias, forget)
    project()
    add(all_gates, all_gates, bias)
    for t = 1, steps do
      steps_gemm[t]()
      add(gates[t], gates[t], product)
      sigmoid(i[t], i[t])
      tanh(j[t], j[t])
      sigmoid(f[t], f[t])                                 -- apart: 2-4x faster than f and o
      sigmoid(o[t], o[t])                                 -- together, [B, 2H] of stride 4H
      cmul(c[t], f[t], c_prev[t])
      addcmul(c[t], c[t], i[t], j[t])
      tanh(tanh_c[t], c[t])
      cmul(h[t], tanh_c[t], o[t])
    end
  end
end
