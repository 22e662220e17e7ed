"""Kernels of softmax and log_softmax's bodies (tinyflow/ops/nn.py): the transposed softmax of
few columns and both gradients."""
from __future__ import annotations

import torch

from ..torch_table import lua_dim

__all__ = ["log_softmax_backward", "softmax_backward", "softmax_rows"]


def softmax_rows(res, x, x_t, res_t):
    """Softmax along 2-D x's last dim, run on x^T in scratch x_t, res_t (faster for < 16
    columns)."""
    x_t.copy_(x.t())
    torch.softmax(x_t, 0, out=res_t)
    res.copy_(res_t.t())


# The kernels' input_dtype is the forward's input dtype, which is res's (x's gradient).
def softmax_backward(res, g, y, dim):  # res = y * (g - sum(g * y, dim))
    torch.ops.aten._softmax_backward_data.out(g, y, lua_dim(dim), res.dtype, grad_input=res)


def log_softmax_backward(res, g, y, dim):  # res = g - exp(y) * sum(g, dim)
    torch.ops.aten._log_softmax_backward_data.out(g, y, lua_dim(dim), res.dtype, out=res)
