"""Kernels of the array bodies (tinyflow/ops/array.py): strided_slice's attrs as a view; the
coordinates of true elements into a tensor the body resizes; indices checked on a GPU."""
from __future__ import annotations

import math

import torch

__all__ = ["check_range", "gpu_checked", "nonzero", "stitch", "strided_view"]


def gpu_checked(function, index, position, size, what):
    """``function`` (taking the tensor ``index`` as its argument ``position``, 1-based), on a
    GPU checking the index in [0, size) first (setup only).  torch checks it on the CPU, but
    its GPU kernels assert on the device, ending the CUDA context; the check reads it on the
    host, a sync: the ops calling it are TUncapturable."""
    if not index.is_cuda:
        return function

    def checked(*args):
        check_range(args[position - 1], size, what)
        return function(*args)
    return checked


def check_range(index, size, what) -> None:
    """IndexError (TensorFlow's text) unless the values of int tensor ``index`` are in
    [0, size): one host sync."""
    if index.numel():
        low, high = torch.aminmax(index)
        if low < 0 or high >= size:
            flat = index.reshape(-1)
            at = int(torch.nonzero((flat < 0) | (flat >= size))[0])
            raise IndexError(f"{what}[{at}] = {int(flat[at])} is not in [0, {int(size)})")


def nonzero(res, x, check_fits) -> None:
    """res = the coordinates of x's nonzero elements, int64 [count, x's rank]: res takes new
    storage (a run-time-shaped output, a tensor of its own), checked with ``check_fits``."""
    count = int(torch.count_nonzero(x))
    check_fits(count * x.dim() * 8, (count, x.dim()))
    res.set_(torch.nonzero(x))  # its own storage (numpy() of the last one fixed its size)


def stitch(res, inputs, check_fits) -> None:
    """res = TF's DynamicStitch of ``inputs`` (a Lua array: the indices, then as many data):
    row ``indices[m][i]`` is ``data[m][i]``, the last writer winning; max index + 1 rows (rows
    no index names are zeros).  res takes new storage, checked with ``check_fits``."""
    tensors = [inputs[k] for k in range(1, len(inputs) + 1)]
    half = len(tensors) // 2
    rows = tuple(tensors[half].shape[tensors[0].dim():])
    index = torch.cat([t.reshape(-1).long() for t in tensors[:half]])
    values = torch.cat([d.reshape((i.numel(),) + rows) for i, d in zip(tensors[:half],
                                                                         tensors[half:])])
    if index.numel() and int(index.min()) < 0:
        at = int(torch.nonzero(index < 0)[0])
        raise IndexError(f"indices[{at}] = {int(index[at])} is out of range")
    count = int(index.max()) + 1 if index.numel() else 0
    check_fits(count * math.prod(rows) * values.element_size(), (count,) + rows)
    last = torch.full((count,), -1, dtype=torch.long, device=index.device)
    last.scatter_reduce_(0, index, torch.arange(len(index), device=index.device), "amax")
    out = values.new_zeros((count,) + rows)
    written = last >= 0
    out[written] = values[last[written]]
    res.set_(out)


def _mask_index(kwarg):
    """A strided_slice's attrs as a Python index (tinyflow.ops.array.slice_index in Lua terms)."""
    begin, end, strides = (tuple(int(v) for v in kwarg[k].values())
                           for k in ("begin", "end", "strides"))
    masks = [int(kwarg[k] or 0) for k in ("begin_mask", "end_mask", "ellipsis_mask",
                                          "new_axis_mask", "shrink_axis_mask")]
    index = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if masks[2] & bit:
            index.append(Ellipsis)
        elif masks[3] & bit:
            index.append(None)
        elif masks[4] & bit:
            index.append(b)
        else:
            index.append(slice(None if masks[0] & bit else b, None if masks[1] & bit else e, s))
    return index


def strided_view(x, kwarg):
    """View of x for a strided_slice's attrs (TensorFlow's begin, end, strides and masks), and
    the dims to flip, or nil (negative strides: torch views cannot have them; setup only)."""
    index = _mask_index(kwarg)
    used = sum(1 for i in index if i is not None and i is not Ellipsis)
    if Ellipsis in index:
        at = index.index(Ellipsis)
        index[at:at + 1] = [slice(None)] * (x.dim() - used)
    flips, out_dim, dim = [], 0, 0
    for k, item in enumerate(index):
        if isinstance(item, slice) and (item.step or 1) < 0:  # same elements, torch's order
            picked = range(*item.indices(x.shape[dim]))
            index[k] = slice(picked[-1], picked[0] + 1, -item.step) if picked else slice(0, 0)
            flips.append(out_dim)
        out_dim += not isinstance(item, int)
        dim += item is not None
    return x[tuple(index)], tuple(flips) or None
