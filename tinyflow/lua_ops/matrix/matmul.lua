-- matmul: y = a @ b, with a^T / b^T when kwarg.transpose_a / kwarg.transpose_b.
-- torch's MKL gemm is slow for a y with few columns (784x10 weights: 1.5 to 3 times slower):
-- there numpy's BLAS computes it (kernels.blas_mm, on the CPU), or else y^T = b^T @ a^T goes into
-- a scratch buffer and is copied back.  Larger products take the faster of two CPU GEMMs (MKL,
-- oneDNN) for their shapes, timed once (kernels.mm_function).
return function(x, y, kwarg)
  local a = kwarg.transpose_a and torch.t(x[1]) or x[1]
  local b = kwarg.transpose_b and torch.t(x[2]) or x[2]
  local mm, out = torch.mm, y[1]
  local rows, cols = torch.size(out, 1), torch.size(out, 2)
  if cols <= 16 and rows >= 4 * cols and torch.is_cpu(out) then
    local blas = kernels.blas_mm(out, a, b)
    if blas ~= nil then return function() blas() end end
    if not kwarg.transpose_b then
      local out_t = torch.empty(out, {cols, rows})
      local copy, a_t, b_t, out_t_t = torch.copy, torch.t(a), torch.t(b), torch.t(out_t)
      return function()
        mm(out_t, b_t, a_t)
        copy(out, out_t_t)
      end
    end
  end
  local gemm = kernels.mm_function(out, a, b)
  return function() gemm() end
end
