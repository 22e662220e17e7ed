"""test_ops' table for the segment reductions (tinyflow/ops/segment.py): each unsorted and sorted
reduction against a torch reference written segment by segment (float64 autograd), memory
planning on and off, gradients against finite differences; ids of rank 1 and 2, negative
(dropped) ids, empty segments, zeros in a product.  TF's facts (empty-segment values, errors)
checked with real TF are in tests/test_segment_ops.py."""
import numpy as np
import torch

import tinyflow as tf
from tinyflow.nnvm.symbol import create_op

F64 = torch.float64
# an empty segment of an unsorted max / min holds float32's lowest / highest (TF's kernels)
_LOWEST, _HIGHEST = float(np.finfo(np.float32).min), float(np.finfo(np.float32).max)


def _segments(data, ids, count, reduce, empty):
    """Row s: ``reduce`` of data's slices whose id is s (torch), ``empty`` where none is."""
    ids = ids.to(torch.int64)
    rows = data.reshape((ids.numel(),) + data.shape[ids.dim():])
    flat = ids.reshape(-1)
    out = [reduce(rows[flat == s]) if bool((flat == s).any())
           else torch.full(rows.shape[1:], float(empty), dtype=F64) for s in range(count)]
    return torch.stack(out)


_REDUCE = {"sum": (lambda r: r.sum(0), 0.0), "mean": (lambda r: r.mean(0), 0.0),
           "sqrt_n": (lambda r: r.sum(0) / r.shape[0] ** 0.5, 0.0),
           "max": (lambda r: r.amax(0), _LOWEST), "min": (lambda r: r.amin(0), _HIGHEST),
           "prod": (lambda r: r.prod(0), 1.0)}


def _unsorted_case(add, kind, label, data, ids, count, **kw):
    reduce, empty = _REDUCE[kind]
    add(f"unsorted_segment_{kind}", label,
        lambda d, i, k=kind: getattr(tf, f"unsorted_segment_{k}")(d, tf.cast(i, tf.int32), count),
        ref=lambda d, i: _segments(d, i, count, reduce, empty),
        inputs=lambda rng: [data(rng), np.asarray(ids, np.float64)], wrt=(0,), **kw)


def _sorted_case(add, kind, label, data, ids):
    reduce, _ = _REDUCE[kind]
    empty = 1.0 if kind == "prod" else 0.0  # TF's sorted kernels: 0 in an empty segment
    add(f"segment_{kind}", label,
        lambda d, i, k=kind: getattr(tf, f"segment_{k}")(d, tf.cast(i, tf.int64)),
        ref=lambda d, i: _segments(d, i, int(i[-1]) + 1, reduce, empty),
        inputs=lambda rng: [data(rng), np.asarray(ids, np.float64)], wrt=(0,))


def _gather_ref(rows, ids, scale):
    flat = ids.to(torch.int64).reshape(-1)
    kept = flat >= 0
    counts = torch.bincount(flat[kept], minlength=rows.shape[0]).clamp(min=1).to(F64)
    table = rows.reshape(rows.shape[0], -1)
    if scale != "none":
        table = table / (counts.sqrt() if scale == "sqrt_n" else counts).view(-1, 1)
    picked = table[flat.clamp(min=0)] * kept.to(F64).view(-1, 1)
    return picked.reshape(tuple(ids.shape) + tuple(rows.shape[1:]))


def add_cases(add):
    """Every kind over 1-D ids, with empty segments, 2-D ids, a dropped negative id; the
    sorted kinds over runs of ids with a gap; products with one and two zeros in a segment;
    the gradients' gather with each scale, sorted and not."""
    normal = lambda shape: lambda rng: rng.standard_normal(shape)
    for kind in ("sum", "mean", "sqrt_n", "max", "min", "prod"):
        _unsorted_case(add, kind, "1d-ids", normal((5, 3)), [0, 2, 0, 1, 2], 3)
        # empty segments 1 and 4; a max's or min's holds +-3.4e38, which leaves finite
        # differences of the summed output no precision: its gradient is checked above
        _unsorted_case(add, kind, "empty-segments", normal((5, 3)), [0, 2, 0, 3, 2], 5,
                       check_gradient=kind not in ("max", "min"))
        _unsorted_case(add, kind, "2d-ids", normal((2, 3, 2)), [[1, 0, 1], [2, 1, 0]], 3)
        _unsorted_case(add, kind, "negative-id", normal((4,)), [1, -1, 0, 1], 2)
    for kind in ("sum", "mean", "max", "min", "prod"):
        _sorted_case(add, kind, "gap", normal((6, 2)), [0, 0, 1, 3, 3, 3])
        _sorted_case(add, kind, "one-segment", normal((3,)), [0, 0, 0])
    zeros = lambda rng: np.array([[0.0, 2.0], [3.0, 0.0], [0.5, 0.0], [-1.5, 4.0]])
    _unsorted_case(add, "prod", "zeros", zeros, [0, 0, 1, 0], 2)
    _sorted_case(add, "prod", "zeros", zeros, [0, 0, 0, 1])
    for scale in ("none", "mean", "sqrt_n"):
        sorted_too = (("sorted", {}),) if scale != "sqrt_n" else ()  # TF has no sorted sqrt_n
        for label, attrs in (("unsorted", {"num_segments": 3}),) + sorted_too:
            ids = [2, -1, 0, 2] if attrs else [0, 0, 1, 2]
            add("_segment_gather", f"{scale}-{label}",
                lambda r, i, s=scale, a=attrs: create_op(
                    "_segment_gather", r, tf.cast(i, tf.int32), scale=s, **a),
                ref=lambda r, i, s=scale: _gather_ref(r, i, s),
                inputs=lambda rng, i=ids: [rng.standard_normal((3, 2)), np.asarray(i, float)],
                wrt=(0,))
