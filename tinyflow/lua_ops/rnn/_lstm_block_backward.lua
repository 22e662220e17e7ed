-- _lstm_block_backward: lstm_block's gradients.  Inputs dh, dc [T, B, H] (of its outputs h, c),
-- x, c0, h0, kernel, bias, and its outputs h, c, the gates' activations a = (i, j, f, o) and
-- tanh(c); outputs d gates [T, B, 4H] (x's gradient is d gates @ W_x^T, a matmul of its own in
-- the graph), dc0, dh0, dkernel, dbias.  Backwards through the steps:
--   dh = dh_t + dh_carry;  dc = dc_t + dc_carry + dh * o * (1 - tanh(c_t)^2)
--   d gates = (dc * j, dc * i, dc * c_{t-1}, dh * tanh(c_t)) * (i(1 - i), 1 - j^2, f(1 - f),
--             o(1 - o))  (the derivatives of sigmoid, tanh, sigmoid, sigmoid)
--   dc_carry = dc * f;  dh_carry = d gates @ W_h^T
-- Each step's work stays on [B, 4H] and [B, H] slices (in cache): the derivatives are torch's
-- sigmoid_backward (the whole row) and tanh_backward (j's columns, and c's), one kernel each;
-- the next step's dh_{t-1} is added to the carry's GEMM (kernels.gemm_add_function) and
-- dc_{t-1} in dc_carry's addcmul.  The gates' gradients of all steps land in one buffer, so
-- the kernel's gradient is one GEMM over all steps for W_x ([D + 1, T*B] @ [T*B, 4H], a column
-- of ones after x's, whose row is the bias's gradient: no pass of its own over the 7 MB) and
-- one for W_h.  The GEMMs are oneDNN's on CPU float32 (kernels.gemm_function).
return function(x, y, kwarg)
  local narrow, view, t_, gemm = torch.narrow, torch.view, torch.t, kernels.gemm_function
  local steps, batch, depth = torch.size(x[3], 1), torch.size(x[3], 2), torch.size(x[3], 3)
  local units = torch.size(x[4], 2)
  local kernel = x[6]
  local grads = y[1]                                      -- the gates' gradients [T, B, 4H]
  local dc = y[2]                                         -- dc of the step; ends as dc0
  local function rows(tensor, t, n)                       -- steps t .. t+n-1 as [n*B, size]
    return view(narrow(tensor, 1, t, n), {n * batch, torch.size(tensor, 3)})
  end
  local part = torch.empty(kernel, {batch, 4 * units})    -- (dc * j, dc * i, dc * c_{t-1}, ...)
  local scratch, dh_carry = torch.empty(kernel, {batch, units}), torch.empty(kernel, {batch, units})
  local part_k = {}
  for k = 1, 4 do part_k[k] = narrow(part, 2, (k - 1) * units + 1, units) end
  local w_h_t = t_(narrow(kernel, 1, depth + 1, units))
  local g, g_j, a, gate, dh, dc_in, tc, c_prev, carry = {}, {}, {}, {}, {}, {}, {}, {}, {}
  for t = 1, steps do
    g[t], a[t], gate[t] = rows(grads, t, 1), rows(x[10], t, 1), {}
    g_j[t] = narrow(g[t], 2, units + 1, units)
    for k = 1, 4 do gate[t][k] = narrow(a[t], 2, (k - 1) * units + 1, units) end
    dh[t], dc_in[t], tc[t] = rows(x[1], t, 1), rows(x[2], t, 1), rows(x[11], t, 1)
    c_prev[t] = t == 1 and x[4] or rows(x[9], t - 1, 1)
    -- dh of step t - 1: dh_{t-1} + d gates_t @ W_h^T; dh0 has no dh_0 to add
    carry[t] = t > 1 and kernels.gemm_add_function(dh_carry, dh[t - 1], g[t], w_h_t)
      or gemm(y[3], g[1], w_h_t)
  end
  local grads_flat, dkernel_h = rows(grads, 1, steps), narrow(y[4], 1, depth + 1, units)
  -- [x, 1] @ the gates' gradients: W_x's gradient and (the ones' row) the bias's, one GEMM
  local x_ones = torch.empty(kernel, {steps * batch, depth + 1})
  local product = torch.empty(kernel, {depth + 1, 4 * units})
  torch.fill(narrow(x_ones, 2, depth + 1, 1), 1)
  local x_columns, x_rows = narrow(x_ones, 2, 1, depth), rows(x[3], 1, steps)
  local kernel_x_gemm = gemm(product, t_(x_ones), grads_flat)
  local product_x, dkernel_x = narrow(product, 1, 1, depth), narrow(y[4], 1, 1, depth)
  local product_ones = view(narrow(product, 1, depth + 1, 1), {4 * units})
  -- h_1 .. h_{T-1}, read by steps 2 .. T; h0 by step 1, apart
  local kernel_h_gemm = gemm(dkernel_h, t_(rows(x[8], 1, steps - 1)), rows(grads, 2, steps - 1))
  local first_gemm = kernels.gemm_add_function(dkernel_h, dkernel_h, t_(x[5]), g[1])
  local addcmul, cmul, copy = torch.addcmul, torch.cmul, torch.copy
  local sigmoid_backward, tanh_backward = kernels.sigmoid_backward, kernels.tanh_backward
  return function()
    copy(dc, dc_in[steps])
    local dh_t = dh[steps]
    for t = steps, 1, -1 do
      local i, j, f, o = gate[t][1], gate[t][2], gate[t][3], gate[t][4]
      tanh_backward(scratch, dh_t, tc[t])                 -- dc += dh * (1 - tanh(c)^2) * o
      addcmul(dc, dc, scratch, o)
      cmul(part_k[1], dc, j)
      cmul(part_k[2], dc, i)
      cmul(part_k[3], dc, c_prev[t])
      cmul(part_k[4], dh_t, tc[t])
      sigmoid_backward(g[t], part, a[t])                  -- * a(1 - a), the whole row
      tanh_backward(g_j[t], part_k[2], j)                 -- j's columns: * (1 - j^2)
      if t > 1 then
        addcmul(dc, dc_in[t - 1], dc, f)                  -- dc_{t-1} + dc * f
        carry[t]()
        dh_t = dh_carry
      else
        cmul(dc, dc, f)
        carry[1]()
      end
    end
    copy(x_columns, x_rows)
    kernel_x_gemm()
    copy(dkernel_x, product_x)
    copy(y[5], product_ones)
    kernel_h_gemm()
    first_gemm()
  end
end
