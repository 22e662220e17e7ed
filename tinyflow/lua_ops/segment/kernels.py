"""Kernels of the segment reductions (tinyflow/ops/segment.py): the ids are read on the host and
checked, so one out of range is TensorFlow's InvalidArgumentError text naming it, never memory
outside the tensor (nor, on a GPU, a device assert)."""
from __future__ import annotations

import math

import numpy as np
import torch

from ...nnvm.errors import InvalidArgumentError

__all__ = ["segment_gather", "sorted_segment", "unsorted_segment"]

# torch's scatter_reduce_ names, and the value an empty segment of an unsorted op holds
_REDUCE = {"sum": "sum", "mean": "sum", "sqrt_n": "sum", "max": "amax", "min": "amin",
           "prod": "prod"}


def _invalid(message):
    return InvalidArgumentError(None, None, message)


def _initial(kind, dtype):
    if kind in ("max", "min"):  # TF's numeric_limits<T>::lowest() / max()
        info = torch.finfo(dtype) if dtype.is_floating_point else torch.iinfo(dtype)
        return info.min if kind == "max" else info.max
    return 1 if kind == "prod" else 0


def _reduce(out, rows, ids, kind):
    """out ([segments, inner]) = the reduction of rows ([n, inner]) per id (all in range)."""
    if out.numel() == 0:  # nothing to write (and no counts of segments without elements)
        return
    out.fill_(_initial(kind, out.dtype))
    if rows.shape[0] and out.numel():
        index = ids.view(-1, 1).expand(-1, rows.shape[1])
        out.scatter_reduce_(0, index, rows, _REDUCE[kind], include_self=True)
    if kind in ("mean", "sqrt_n"):  # TF: sum / max(count, 1) (integers: rounded toward zero)
        counts = torch.bincount(ids, minlength=out.shape[0]).clamp_(min=1).view(-1, 1)
        if kind == "sqrt_n":
            out.div_(counts.to(out.dtype).sqrt_())
        elif out.dtype.is_floating_point:
            out.div_(counts.to(out.dtype))
        else:
            out.copy_(torch.div(out, counts, rounding_mode="trunc"))


def _rows(data, ids):
    count = ids.numel()
    return data.reshape(count, math.prod(data.shape[ids.dim():])), ids.reshape(-1).to(torch.int64)


def unsorted_segment(out, data, ids, kind) -> None:
    """out = data's slices reduced per segment id, ids below 0 dropped (TF's CPU kernel)."""
    rows, flat = _rows(data, ids)
    segments = out.shape[0]
    past = (flat >= segments).nonzero()
    if past.numel():
        at = int(past[0, 0])
        where = ",".join(str(int(i)) for i in np.unravel_index(at, tuple(ids.shape)))
        raise _invalid(f"segment_ids[{where}] = {int(flat[at])} is out of range "
                       f"[0, {segments})")
    kept = flat >= 0
    if not bool(kept.all()):
        rows, flat = rows[kept], flat[kept]
    _reduce(out.view(segments, -1) if out.numel() else out.reshape(segments, -1), rows, flat,
            kind)


def sorted_segment(res, data, ids, kind, check_fits) -> None:
    """res (a tensor of its own, resized) = data's rows reduced per sorted id: ids[-1] + 1 rows,
    an empty segment 0 (1 for prod): TF's SegmentReduction kernel."""
    rows, flat = _rows(data, ids)
    segments = 0
    if flat.numel():
        if bool((flat[1:] < flat[:-1]).any()):
            raise _invalid("segment ids are not increasing")
        first, segments = int(flat[0]), int(flat[-1]) + 1
        if first < 0:
            raise _invalid(f"Segment id {first} out of range [0, {segments}), possibly "
                           f"because 'segment_ids' input is not sorted.")
    shape = (segments,) + tuple(data.shape[1:])
    # the rows, and the count per segment that a mean or an empty max / min needs
    check_fits(math.prod(shape) * data.element_size() + 8 * segments * (rows.shape[1] > 0),
               shape)
    res.set_(torch.empty(shape, dtype=data.dtype, device=data.device))
    out = res.view(segments, rows.shape[1])
    _reduce(out, rows, flat, kind)
    if kind in ("max", "min") and out.numel():  # TF's sorted kernels leave an empty one 0
        out[torch.bincount(flat, minlength=segments) == 0] = 0


def segment_gather(out, rows, ids, scale) -> None:
    """out[i] = rows[ids[i]] (0 for a negative id), divided by the id's count ('mean') or its
    square root ('sqrt_n'): TF's _GatherDropNegatives, of a segment reduction's gradient."""
    segments = rows.shape[0]
    if out.numel() == 0:  # nothing to write (rows may be [huge, 0]: no counts then)
        return
    flat = ids.reshape(-1).to(torch.int64)
    past = (flat >= segments).nonzero()
    if past.numel():
        raise _invalid(f"segment_ids[{int(past[0, 0])}] = {int(flat[past[0, 0]])} is out of "
                       f"range [0, {segments})")
    kept = flat >= 0
    table = rows.reshape(segments, -1)
    if scale != "none":
        counts = torch.bincount(flat[kept], minlength=segments).clamp_(min=1).to(rows.dtype)
        table = table / (counts.sqrt_() if scale == "sqrt_n" else counts).view(-1, 1)
    picked = table.index_select(0, flat.clamp(min=0))
    picked[~kept] = 0
    out.copy_(picked.view(out.shape))
