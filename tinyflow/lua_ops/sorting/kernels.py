"""Kernels of the sorting and counting bodies (tinyflow/ops/sorting.py): a stable sort, and the
ops whose outputs the data sizes (each output takes new storage, checked with ``check_fits``
first).  Indices given to ``sort_backward`` are checked on the host, never written through
unchecked."""
from __future__ import annotations

import torch

from ...nnvm.errors import InvalidArgumentError

__all__ = ["bincount", "setdiff1d", "sort", "sort_backward", "unique"]


def _invalid(message):
    return InvalidArgumentError(None, None, message)


def _dim(axis, x):
    return int(axis) % max(x.dim(), 1)


def sort(values, indices, x, axis, descending) -> None:
    """values, indices = x sorted along axis, equal elements in their order (stable)."""
    if x.numel() == 0:
        return
    ordered, order = torch.sort(x, dim=_dim(axis, x), descending=bool(descending), stable=True)
    values.copy_(ordered)
    indices.copy_(order)


def sort_backward(out, g, indices, axis, gather) -> None:
    """out[..., i[k], ...] = g[..., k, ...] along axis (gather: out[..., k, ...] = g[..., i[k],
    ...]); the indices must be a permutation's, in range."""
    if out.numel() == 0:
        return
    dim, index = _dim(axis, g), indices.to(torch.int64)
    size = g.shape[dim]
    if bool(((index < 0) | (index >= size)).any()):
        raise _invalid(f"sort indices must be in [0, {size}) along axis {dim}")
    if gather:
        torch.gather(g, dim, index, out=out)
    else:
        out.zero_()
        out.scatter_(dim, index, g)


def _sized(res, values, check_fits):
    """res takes values' storage, after check_fits accepted their bytes."""
    check_fits(values.numel() * values.element_size(), tuple(values.shape))
    res.set_(values.contiguous())


def unique(y, idx, count, x, check_fits) -> None:
    """y = x's distinct elements in the order they first occur, idx[i] = x[i]'s position in y,
    count = how often each occurs (TF's UniqueWithCounts)."""
    distinct, inverse, counts = torch.unique(x, sorted=True, return_inverse=True,
                                             return_counts=True)
    positions = torch.arange(x.numel(), device=x.device)
    first = torch.full((distinct.numel(),), x.numel(), dtype=torch.int64, device=x.device)
    first.scatter_reduce_(0, inverse, positions, "amin")
    order = torch.argsort(first)  # the distinct elements by their first occurrence
    rank = torch.empty_like(order)
    rank[order] = torch.arange(order.numel(), device=x.device)
    _sized(y, distinct[order], check_fits)
    _sized(count, counts[order].to(count.dtype), check_fits)
    idx.copy_(rank[inverse])


def setdiff1d(out, idx, x, y, check_fits) -> None:
    """out = x's elements not in y (x's order, repeats kept); idx = their positions in x."""
    keep = ~torch.isin(x, y)
    _sized(out, x[keep], check_fits)
    _sized(idx, keep.nonzero().view(-1).to(idx.dtype), check_fits)


def bincount(out, arr, weights, minlength, maxlength, check_fits) -> None:
    """out[v] = how often v occurs in arr (or the sum of its weights there): max(arr) + 1
    bins, at least minlength, at most maxlength.  TF 1.15's bincount: without weights values
    outside the bins are left out (the Bincount op); with them, TF sums by
    unsorted_segment_sum, which drops negative values and refuses one past the bins."""
    flat = arr.reshape(-1).to(torch.int64)
    size = int(flat.max()) + 1 if flat.numel() else 0
    size = max(size, int(minlength)) if minlength is not None else size
    size = min(size, int(maxlength)) if maxlength is not None else size
    if size < 0:
        raise _invalid(f"size ({size}) must be non-negative")
    check_fits(size * out.element_size(), (size,))
    res = torch.zeros(size, dtype=out.dtype, device=arr.device)
    if weights is None:
        kept = (flat >= 0) & (flat < size)
        res.index_add_(0, flat[kept], torch.ones_like(flat[kept], dtype=out.dtype))
    else:
        past = (flat >= size).nonzero()
        if past.numel():
            at = int(past[0, 0])
            raise _invalid(f"segment_ids[{at}] = {int(flat[at])} is out of range [0, {size})")
        kept = flat >= 0
        res.index_add_(0, flat[kept], weights.reshape(-1)[kept].to(out.dtype))
    out.set_(res)
