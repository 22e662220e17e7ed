"""Kernels of softmax and log_softmax's bodies (tinyflow/ops/nn.py): the transposed softmax of
few columns and both gradients."""
from __future__ import annotations

import torch

from ..torch_table import lua_dim

__all__ = ["log_softmax", "log_softmax_backward", "softmax", "softmax_backward", "softmax_rows"]

# Below this many elements the kernels run on one thread: torch's softmax kernels wake the
# whole team even for a few rows (100x10: 10-18 us on 2 threads against 5-7 on one; 50-140 us
# a call when another process holds a core).  By size only, never by load: the results'
# last bits depend on the count, so a graph's are the same run to run.
_SMALL = 1 << 15
_set_threads = torch._C.set_num_threads  # torch.set_num_threads itself; the kernel's own switch


def _small_on_one_thread(kernel):
    def run(res, *args):
        count = torch.get_num_threads()
        if count == 1 or res.numel() >= _SMALL or res.device.type != "cpu":
            return kernel(res, *args)
        _set_threads(1)  # 0.2 us a pair
        try:
            return kernel(res, *args)
        finally:
            _set_threads(count)
    run.__name__, run.__doc__ = kernel.__name__, kernel.__doc__
    return run


@_small_on_one_thread
def softmax(res, x, dim):
    torch.softmax(x, lua_dim(dim), out=res)


@_small_on_one_thread
def log_softmax(res, x, dim):
    torch.log_softmax(x, lua_dim(dim), out=res)


@_small_on_one_thread
def softmax_rows(res, x, x_t, res_t):
    """Softmax along 2-D x's last dim, run on x^T in scratch x_t, res_t (faster for < 16
    columns)."""
    x_t.copy_(x.t())
    torch.softmax(x_t, 0, out=res_t)
    res.copy_(res_t.t())


# The kernels' input_dtype is the forward's input dtype, which is res's (x's gradient).
@_small_on_one_thread
def softmax_backward(res, g, y, dim):  # res = y * (g - sum(g * y, dim))
    torch.ops.aten._softmax_backward_data.out(g, y, lua_dim(dim), res.dtype, grad_input=res)


@_small_on_one_thread
def log_softmax_backward(res, g, y, dim):  # res = g - exp(y) * sum(g, dim)
    torch.ops.aten._log_softmax_backward_data.out(g, y, lua_dim(dim), res.dtype, out=res)
