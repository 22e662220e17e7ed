"""Kernels of the indexing bodies (tinyflow/ops/indexing.py): the index values are read on the
host and checked, so one out of range is TensorFlow's InvalidArgumentError text naming it,
never memory outside the tensor (and, on a GPU, never a device assert)."""
from __future__ import annotations

import math

import torch

from ...nnvm.errors import InvalidArgumentError

__all__ = ["gather_nd", "gather_nd_backward", "reverse_sequence", "scatter_nd",
           "select_index", "select_index_backward", "tensor_scatter_nd"]


def _invalid(message):
    return InvalidArgumentError(None, None, message)


def _selected(x, dim, index):
    """``x.select(dim, i)`` for the scalar tensor ``index`` (negative: from the end)."""
    dim, size, value = int(dim), x.shape[int(dim)], int(index)
    at = value + size if value < 0 else value
    if not 0 <= at < size:  # TF's StridedSlice message (it says the wrapped index)
        raise _invalid(f"slice index {at} of dimension {dim} out of bounds "
                         f"(index {value}, size {size})")
    return x.select(dim, at)


def select_index(out, x, index, dim):
    """out = x[..., index, ...] along dim."""
    out.copy_(_selected(x, dim, index))


def select_index_backward(out, g, index, dim):
    """out = zeros with g written at index along dim."""
    view = _selected(out, dim, index)
    out.zero_()
    view.copy_(g)


def _rows(indices, shape, batch_dims, what):
    """The flat row of each coordinate vector of ``indices`` ([B..., I..., depth]) in a tensor
    of ``shape`` viewed as ``[prod(shape[:batch_dims + depth]), rest]``; checked."""
    batch_dims, depth = int(batch_dims), indices.shape[-1]
    sizes = shape[batch_dims:batch_dims + depth]
    coords = indices.reshape(-1, depth).to(torch.int64)
    bad = ((coords < 0) | (coords >= torch.tensor(sizes, device=coords.device))).any(1)
    if bool(bad.any()):
        row = int(bad.nonzero()[0, 0])
        raise _invalid(f"indices[{row}] = {coords[row].tolist()} does not index into "
                       f"{what} {list(shape)}")
    strides = [math.prod(sizes[j + 1:]) for j in range(depth)]
    # a sum of products, not coords @ strides: CUDA has no integer matrix-vector product
    flat = (coords * torch.tensor(strides, dtype=torch.int64, device=coords.device)).sum(1)
    if batch_dims:  # each batch entry's rows start after the previous entries'
        count = math.prod(indices.shape[batch_dims:-1])
        batch = torch.arange(math.prod(shape[:batch_dims]), device=coords.device)
        flat = flat + (batch * math.prod(sizes)).repeat_interleave(count)
    return flat, math.prod(shape[batch_dims + depth:])


def gather_nd(out, params, indices, batch_dims):
    """out[b, i] = params[b, *indices[b, i]]."""
    rows, rest = _rows(indices, tuple(params.shape), batch_dims, "param shape")
    torch.index_select(params.reshape(-1, rest), 0, rows, out=out.view(-1, rest))


def gather_nd_backward(out, g, indices, batch_dims):
    """out = zeros with g added at the coordinates gather_nd read."""
    _added(out, g, indices, batch_dims, "param shape")


def _added(out, values, indices, batch_dims, what):
    rows, rest = _rows(indices, tuple(out.shape), batch_dims, what)
    out.zero_()
    out.view(-1, rest).index_add_(0, rows, values.reshape(-1, rest))


def scatter_nd(out, indices, updates):
    """out = zeros with updates[i] added at indices[i]."""
    _added(out, updates, indices, 0, "shape")


def tensor_scatter_nd(out, tensor, indices, updates, mode):
    """out = tensor with updates written ('update'), added or subtracted, or the larger or
    smaller kept ('max', 'min') at indices."""
    rows, rest = _rows(indices, tuple(out.shape), 0, "shape")
    out.copy_(tensor)
    flat, values = out.view(-1, rest), updates.reshape(-1, rest)
    if mode == "update":
        flat.index_copy_(0, rows, values)
    elif mode in ("max", "min"):
        flat.scatter_reduce_(0, rows[:, None].expand(values.shape), values,
                             "amax" if mode == "max" else "amin")
    else:
        flat.index_add_(0, rows, values, alpha=1 if mode == "add" else -1)


def reverse_sequence(out, x, lengths, seq_axis, batch_axis):
    """out = x with each batch entry's first lengths[b] steps along seq_axis reversed."""
    seq_axis, batch_axis = int(seq_axis), int(batch_axis)
    steps = x.shape[seq_axis]
    lengths = lengths.to(torch.int64)
    bad = (lengths < 0) | (lengths > steps)
    if bool(bad.any()):
        b = int(bad.nonzero()[0, 0])
        raise _invalid(f"seq_lens({b}) > input.dims({seq_axis}): seq_lengths[{b}] = "
                         f"{int(lengths[b])} is not in [0, {steps}]")
    moved = x.movedim((seq_axis, batch_axis), (0, 1))
    time = torch.arange(steps, device=x.device)[:, None]
    source = torch.where(time < lengths, lengths - 1 - time, time)  # [steps, batch]
    source = source.reshape(source.shape + (1,) * (moved.dim() - 2)).expand(moved.shape)
    out.movedim((seq_axis, batch_axis), (0, 1)).copy_(torch.gather(moved, 0, source))
