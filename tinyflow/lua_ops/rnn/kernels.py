"""Kernels of the fused recurrent ops' bodies (tinyflow/ops/rnn.py): GEMMs, a step's gates from
one GEMM, and the activations' derivatives.

On CPU float32 the GEMMs are oneDNN's ``_linear_pointwise`` (2-3x faster than MKL's on this
CPU for an LSTM step's [128, 128] @ [128, 512]), which returns a new tensor
(from the allocator's cache): the bias rides in the GEMM, and the gates' activations (or the
add of the carried gradient) read the new tensor and write into the planned buffer.  A new
tensor never goes back to Lua, whose collector would keep each alive a while (and the
allocator from reusing its memory, in cache: the backward was 0.4 ms slower a run so).
Elsewhere (CUDA, float64) ``addmm`` writes into a buffer.
"""
from __future__ import annotations

import functools

import numpy as np
import torch

from ..cpu import onednn
from ..elemwise.kernels import sigmoid_backward, tanh_backward
from ..elemwise.kernels import tanh_function as _numpy_tanh_function
from ..torch_table import tanh as _tanh
from ..torch_table import tanh_views

__all__ = ["gates_function", "gemm_add_function", "gemm_function", "sigmoid_backward",
           "tanh_backward", "tanh_function"]


def gates_function(acts, inputs, weight_t, bias, units):
    """Setup: a function writing one LSTM step's gates' activations into ``acts`` [B, 4H]
    (i, j, f, o: sigmoid, tanh, sigmoid, sigmoid) from ``inputs @ weight_t^T + bias``
    (``inputs`` [B, D + H] = [x_t, h_{t-1}], ``weight_t`` [4H, D + H] contiguous, oneDNN's
    layout).  One sigmoid over the whole contiguous row, then tanh over j's columns (from the
    pre-activations): fewer calls than four on strided slices, and faster measured."""
    j_columns = slice(int(units), 2 * int(units))
    if onednn(acts) and inputs.is_contiguous():
        linear, j_acts = torch.ops.mkldnn._linear_pointwise, acts[:, j_columns]
        j_views = tanh_views(acts, acts)  # numpy's tanh where it is faster (5x torch's here)
        j_out = j_views[0][:, j_columns] if j_views is not None else None

        def run():
            gates = linear(inputs, weight_t, bias, "none", [], "")
            torch.sigmoid(gates, out=acts)
            if j_out is not None:
                np.tanh(gates.numpy()[:, j_columns], out=j_out)
            else:
                torch.tanh(gates[:, j_columns], out=j_acts)
        return run
    gates = torch.empty_like(acts)

    def run_addmm():
        torch.addmm(bias, inputs, weight_t.t(), out=gates)
        torch.sigmoid(gates, out=acts)
        _tanh(acts[:, j_columns], gates[:, j_columns])
    return run_addmm


def gemm_function(res, a, b):
    """Setup: a function doing res = a @ b (2-D): oneDNN's on CPU float32 (rather than matmul's
    timed choice, which under load now and then timed MKL's faster: 1.7 ms a call against 0.65
    for W_x's gradient), else ``mm`` (and for an empty product: W_h's gradient of one step)."""
    if onednn(res) and a.shape[1] > 0:
        weight, linear = b.t(), torch.ops.mkldnn._linear_pointwise  # oneDNN's [out, in]
        return lambda: res.copy_(linear(a, weight, None, "none", [], ""))
    return functools.partial(torch.mm, a, b, out=res)


def gemm_add_function(res, other, a, b):
    """Setup: a function doing res = other + a @ b (2-D; res may be other, not a or b)."""
    if onednn(res):
        weight, linear = b.t(), torch.ops.mkldnn._linear_pointwise
        # the add apart: its fused form (_linear_pointwise.binary) measured 3 us slower
        return lambda: torch.add(linear(a, weight, None, "none", [], ""), other, out=res)
    return functools.partial(torch.addmm, other, a, b, out=res)


def tanh_function(res, a):
    """Setup: a function doing res = tanh(a): numpy's on CPU floats (elemwise's), else torch's."""
    return _numpy_tanh_function(res, a) or (lambda: _tanh(res, a))
