"""Kernels of the reduction bodies (tinyflow/ops/reduce.py): a channels-last bias gradient as a
matrix product, and prod's gradient."""
from __future__ import annotations

import torch

from ..cpu import channels_last
from ..scratch import scratch
from ..torch_table import lua_dims, slices

__all__ = ["prod_backward", "sum_buffers", "sum_by_ones"]


def sum_buffers(x, dims=None):
    # A channels-last (N, C, H, W) x summed over all but C (a bias gradient) is an (N*H*W, C)
    # matrix summed over rows: ones @ x runs at BLAS speed, torch.sum 5x slower on those
    # strides.  The ones row (N*H*W), or nil when that is not the case.
    dims = lua_dims(dims)
    if (x.device.type != "cpu" or not channels_last(x) or not x.is_floating_point()
            or dims is None or sorted(d % 4 for d in dims) != [0, 2, 3]):
        return None
    return scratch(torch.ones((1, x.numel() // x.shape[1]), dtype=x.dtype))


def sum_by_ones(res, x, ones):
    """res = x (channels-last) summed over all but dim 2, as ``ones`` (sum_buffers) @ x."""
    torch.mm(ones, x.permute(0, 2, 3, 1).reshape(-1, x.shape[1]), out=res.view(1, -1))


def prod_backward(res, g, x, dims=None):
    # d prod / d x_i = the product of the slice's other elements: exclusive cumulative products
    # from both ends, exact where x has zeros (g / x * prod would divide by them)
    if lua_dims(dims) == () or x.dim() == 0:
        res.copy_(g)
        return
    order, flat = slices(x, lua_dims(dims))
    ones = torch.ones_like(flat[..., :1])
    before = torch.cumprod(torch.cat([ones, flat[..., :-1]], -1), -1)
    after = torch.cumprod(torch.cat([ones, flat.flip(-1)[..., :-1]], -1), -1).flip(-1)
    grad = before * after * g.reshape(flat.shape[:-1] + (1,))
    res.permute(order).copy_(grad.view(tuple(x.shape[d] for d in order)))
