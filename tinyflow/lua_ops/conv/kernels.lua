-- Lua kernels of the layer bodies, added to their kernels table (runtime.py runs this file once).
local torch, kernels = ...
-- Window padding (convolution, pooling): the padding of NCHW x that gives y's sizes.  TensorFlow's
-- SAME padding puts an odd pixel after the data, which torch's kernels cannot; there the kernel
-- runs without padding on a buffer with x's pixels inside a border (made once, in the setup).
-- window_input and window_grad both return the padding {top, left} to give the kernel, the
-- tensor it runs on, and the copy to make every step, or nil where torch pads by itself.
local copy = torch.copy
local function window_buffer(x, y, kernel, stride, fill)
  local top, bottom, left, right = kernels.window_pads(x, y, kernel, stride)
  if top == bottom and left == right then return {top, left} end
  return {0, 0}, kernels.pad_buffer(x, top, bottom, left, right, fill)
end
-- The pixels an OIHW weight's kernel covers along H and W, dilated: (k - 1) * dilation + 1.
function kernels.kernel_extent(weight, dilation)
  local d = dilation or {1, 1}
  return {(torch.size(weight, 3) - 1) * d[1] + 1, (torch.size(weight, 4) - 1) * d[2] + 1}
end
-- For a kernel reading x: x, or a copy of x bordered with fill (the copy fills it, first).
function kernels.window_input(x, y, kernel, stride, fill)
  local pad, padded, inside = window_buffer(x, y, kernel, stride, fill)
  if padded == nil then return pad, x, nil end
  return pad, padded, function() copy(inside, x) end
end
-- For a kernel writing grad_x, x's gradient: grad_x, or a zero-bordered buffer whose inside
-- the copy takes into grad_x (after the kernel).
function kernels.window_grad(x, y, grad_x, kernel, stride)
  local pad, padded, inside = window_buffer(x, y, kernel, stride, 0)
  if padded == nil then return pad, grad_x, nil end
  return pad, padded, function() copy(grad_x, inside) end
end
