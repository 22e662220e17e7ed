-- _lstm_block_backward: lstm_block's gradients.  Inputs dh, dc [T, B, H] (of its outputs h, c),
-- x, c0, h0, kernel, bias, and its outputs h, c, the gates' activations a = (i, j, f, o) and
-- tanh(c); outputs d gates [T, B, 4H] (x's gradient is d gates @ W_x^T, a matmul of its own in
-- the graph), dc0, dh0, dkernel, dbias.  Backwards through the steps:
--   dh = dh_t + dh_carry;  dc = dc_t + dc_carry + dh * o * (1 - tanh(c_t)^2)
--   d gates = (dc * j, dc * i, dc * c_{t-1}, dh * tanh(c_t)) * (i(1 - i), 1 - j^2, f(1 - f),
--             o(1 - o))  (the derivatives of sigmoid, tanh, sigmoid, sigmoid)
--   dc_carry = dc * f;  dh_carry = d gates @ W_h^T
-- Each step's work stays on [B, 4H] and [B, H] slices (in cache); the gates' gradients of all
-- steps land in one buffer, so the kernel's gradient is one GEMM over all steps ([D, T*B] @
-- [T*B, 4H], likewise for W_h), as is the bias's.  The GEMMs are matmul's
-- (kernels.mm_function: oneDNN's or MKL's, the faster for the shapes).
return function(x, y, kwarg)
  local narrow, view, t_, gemm = torch.narrow, torch.view, torch.t, kernels.mm_function
  local steps, batch, depth = torch.size(x[3], 1), torch.size(x[3], 2), torch.size(x[3], 3)
  local units = torch.size(x[4], 2)
  local kernel = x[6]
  local grads = y[1]                                      -- the gates' gradients [T, B, 4H]
  local dc_carry, dh_carry = y[2], y[3]                   -- end as dc0 and dh0
  local function rows(tensor, t, n)                       -- steps t .. t+n-1 as [n*B, size]
    return view(narrow(tensor, 1, t, n), {n * batch, torch.size(tensor, 3)})
  end
  local part = torch.empty(kernel, {batch, 4 * units})    -- (dc * j, dc * i, dc * c_{t-1}, ...)
  local slope = torch.empty(kernel, {batch, 4 * units})   -- (i(1 - i), 1 - j^2, ...)
  local scratch, ones = torch.empty(kernel, {batch, units}), torch.full_like(x[4], 1)
  local part_k, slope_j = {}, narrow(slope, 2, units + 1, units)
  for k = 1, 4 do part_k[k] = narrow(part, 2, (k - 1) * units + 1, units) end
  local w_h_t = t_(narrow(kernel, 1, depth + 1, units))
  local g, a, gate, dh, dc, tc, c_prev, carry_gemm = {}, {}, {}, {}, {}, {}, {}, {}
  for t = 1, steps do
    g[t], a[t], gate[t] = rows(grads, t, 1), rows(x[10], t, 1), {}
    for k = 1, 4 do gate[t][k] = narrow(a[t], 2, (k - 1) * units + 1, units) end
    dh[t], dc[t], tc[t] = rows(x[1], t, 1), rows(x[2], t, 1), rows(x[11], t, 1)
    c_prev[t] = t == 1 and x[4] or rows(x[9], t - 1, 1)
    carry_gemm[t] = gemm(dh_carry, g[t], w_h_t)
  end
  local grads_flat = rows(grads, 1, steps)
  local dkernel_h = narrow(y[4], 1, depth + 1, units)
  local kernel_x_gemm = gemm(narrow(y[4], 1, 1, depth), t_(rows(x[3], 1, steps)), grads_flat)
  -- h_1 .. h_{T-1}, read by steps 2 .. T; h0 by step 1, apart
  local kernel_h_gemm = gemm(dkernel_h, t_(rows(x[8], 1, steps - 1)), rows(grads, 2, steps - 1))
  local first_product = torch.empty(kernel, {units, 4 * units})
  local first_gemm = gemm(first_product, t_(x[5]), g[1])
  local add, addcmul, cmul, zero, sum = torch.add, torch.addcmul, torch.cmul, torch.zero, torch.sum
  return function()
    zero(dc_carry)
    zero(dh_carry)
    for t = steps, 1, -1 do
      local i, j, f, o = gate[t][1], gate[t][2], gate[t][3], gate[t][4]
      add(dh_carry, dh_carry, dh[t])
      add(dc_carry, dc_carry, dc[t])
      addcmul(scratch, ones, -1, tc[t], tc[t])            -- dc += dh * o * (1 - tanh(c)^2)
      cmul(scratch, scratch, o)
      addcmul(dc_carry, dc_carry, scratch, dh_carry)
      cmul(part_k[1], dc_carry, j)
      cmul(part_k[2], dc_carry, i)
      cmul(part_k[3], dc_carry, c_prev[t])
      cmul(part_k[4], dh_carry, tc[t])
      addcmul(slope, a[t], -1, a[t], a[t])                -- a - a^2
      addcmul(slope_j, ones, -1, j, j)                    -- 1 - j^2
      cmul(g[t], part, slope)
      cmul(dc_carry, dc_carry, f)
      carry_gemm[t]()
    end
    kernel_x_gemm()
    kernel_h_gemm()
    first_gemm()
    add(dkernel_h, dkernel_h, first_product)
    sum(y[5], grads_flat, 1)
  end
end
