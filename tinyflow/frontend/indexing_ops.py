"""TensorFlow 1.15's indexing at coordinate vectors: gather_nd, scatter_nd, the
tensor_scatter_nd family and reverse_sequence (ops in tinyflow/ops/indexing.py).  Indices are
int32 or int64 tensors; each is checked when the graph runs, and one out of range is TF's
InvalidArgumentError naming the node.  ``x[i]`` and ``tf.strided_slice`` with tensors:
tinyflow/ops/indexing.py's ``tensor_index``.
"""
from __future__ import annotations

import numpy as np

from ..nnvm.symbol import Symbol, create_op, current_context
from ..nnvm.tensor_shape import TensorShape
from .api import constant, equal, where
from .array_ops import (
    ShapeValue,
    _folded,
    _static_shape,
    _tensor,
    concat,
    gather,
    gather_dense,
    reshape,
    shaped_by_value,
    squeeze,
    zeros,
)
from .array_ops import shape as shape_of

__all__ = ["batch_gather", "dynamic_partition", "dynamic_stitch", "gather_nd", "reverse_sequence", "scatter_nd", "tensor_scatter_add",
           "tensor_scatter_nd_add", "tensor_scatter_nd_max", "tensor_scatter_nd_min",
           "tensor_scatter_nd_sub", "tensor_scatter_nd_update",
           "tensor_scatter_sub", "tensor_scatter_update"]


def gather_nd(params, indices, name=None, batch_dims=0) -> Symbol:
    """The slices of ``params`` at the coordinate vectors along the last axis of ``indices``:
    ``out[i] = params[indices[i, 0], ..., indices[i, k - 1]]``, of shape
    ``indices.shape[:-1] + params.shape[k:]``.  With ``batch_dims`` b, the first b axes of both
    are a batch, each entry indexing its own slice of params."""
    return create_op("gather_nd", _tensor(params), _tensor(indices), batch_dims=int(batch_dims),
                     name=name or "GatherNd")


def scatter_nd(indices, updates, shape, name=None) -> Symbol:
    """Zeros of ``shape`` with ``updates[i]`` added at the coordinates ``indices[i]``
    (repeated coordinates sum).  ``shape`` may be ``tf.shape(x)`` or an int tensor computed
    from shapes, known when a session binds the graph."""
    indices, updates = _tensor(indices), _tensor(updates)
    target = _static_shape(shape, "scatter_nd", allow_like=False)
    if isinstance(target, ShapeValue):
        result = shaped_by_value("scatter_nd", [indices, updates], target, name or "ScatterNd")
        result.set_shape(target.static)
        return result
    return create_op("scatter_nd", indices, updates, shape=target, name=name or "ScatterNd")


def _tensor_scatter(mode, kind):
    def scatter(tensor, indices, updates, name=None) -> Symbol:
        return create_op("tensor_scatter_nd", _tensor(tensor), _tensor(indices),
                         _tensor(updates), mode=mode, name=name or f"TensorScatter{kind}")
    scatter.__name__ = f"tensor_scatter_nd_{mode}"
    scatter.__doc__ = (f"``tensor`` with ``updates[i]`` {_MODE_WORDS[mode]} at the coordinates "
                       f"``indices[i]`` (a new tensor; ``tensor`` is unchanged).")
    return scatter


_MODE_WORDS = {"update": "written", "add": "added", "sub": "subtracted",
               "max": "kept where larger", "min": "kept where smaller"}
tensor_scatter_nd_update = tensor_scatter_update = _tensor_scatter("update", "Update")
tensor_scatter_nd_add = tensor_scatter_add = _tensor_scatter("add", "Add")
tensor_scatter_nd_sub = tensor_scatter_sub = _tensor_scatter("sub", "Sub")
tensor_scatter_nd_max = _tensor_scatter("max", "Max")
tensor_scatter_nd_min = _tensor_scatter("min", "Min")


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None,
                     seq_dim=None, batch_dim=None) -> Symbol:
    """``input`` with, for each b along ``batch_axis`` (default 0), its first
    ``seq_lengths[b]`` entries along ``seq_axis`` reversed and the rest as they were
    (``seq_dim`` / ``batch_dim``: TF 1.x's older names)."""
    seq_axis = seq_axis if seq_axis is not None else seq_dim
    batch_axis = batch_axis if batch_axis is not None else batch_dim
    if seq_axis is None:
        raise ValueError("reverse_sequence needs seq_axis (or seq_dim)")
    return create_op("reverse_sequence", _tensor(input), _tensor(seq_lengths),
                     seq_axis=int(seq_axis), batch_axis=int(batch_axis or 0),
                     name=name or "ReverseSequence")


def batch_gather(params, indices, name=None) -> Symbol:
    """``out[b..., k, ...] = params[b..., indices[b..., k], ...]``: each batch entry (the axes
    of ``indices`` but its last) gathers from its own slice of ``params`` (TF 1.15's
    composition: a gather from the flattened batch at ``indices`` plus each entry's offset, so
    the gradient is gather's).  The batch axes and the gathered axis must be known when the
    graph is built; an index is checked against the whole flattened batch, as TF's."""
    params, indices = _tensor(params), _tensor(indices)
    ndims = indices.get_shape().ndims
    if ndims is None:
        raise ValueError("batch_gather does not allow indices with unknown shape.")
    shape = params.get_shape()
    if shape.ndims is None or shape.ndims < ndims or None in shape.as_list()[:ndims]:
        raise ValueError(f"batch_gather: params' first {ndims} axes (batch axes and the one "
                         f"gathered from) must be known when the graph is built, got {shape}")
    dims = shape.as_list()
    with current_context().name_scope(name or "BatchGather"):
        batch, rows = dims[:ndims - 1], dims[ndims - 1]
        offsets = (np.arange(int(np.prod(batch)), dtype=np.int64) * rows).reshape(batch + [1])
        flat = reshape(params, [-1] + dims[ndims:]) if None not in dims[ndims:] else reshape(
            params, concat([[-1], shape_of(params)[ndims:]], 0))
        return gather_dense(flat, indices + constant(offsets, dtype=indices.dtype))


def dynamic_partition(data, partitions, num_partitions, name=None) -> list:
    """``num_partitions`` tensors, the i-th holding the slices ``data[j...]`` where
    ``partitions[j...] == i``, in order (TF 1.15's ``tf.dynamic_partition``): ``partitions``
    (int32) has the shape of ``data``'s first axes; each output's length is known once it ran.
    A partition outside ``[0, num_partitions)`` is an error naming the node ``<name>/partitions``
    when it runs (TF's kernel checks them too).  The
    gradient is each gather's: the rows kept get theirs (TF's, a dynamic_stitch of them)."""
    data, partitions = _tensor(data), _tensor(partitions)
    if partitions.dtype.name != "int32":
        raise TypeError(f"dynamic_partition: partitions must be int32, got "
                        f"{partitions.dtype.name}")
    if not isinstance(num_partitions, int) or num_partitions < 1:
        raise ValueError(f"dynamic_partition: num_partitions must be an int >= 1, got "
                         f"{num_partitions!r}")
    rank = partitions.get_shape().ndims
    if rank is None:
        raise ValueError("dynamic_partition: the rank of partitions must be known")
    with current_context().name_scope(name or "DynamicPartition"):
        flat_partitions = reshape(partitions, [-1])
        rest = data.get_shape().as_list()[rank:] if data.get_shape().ndims is not None else [None]
        flat = reshape(data, [-1] + rest) if None not in rest else reshape(
            data, concat([[-1], shape_of(data)[rank:]], 0))
        # a partition out of range fails this gather (TF's kernel checks them too)
        checked = gather(zeros([num_partitions], partitions.dtype), flat_partitions,
                         name="partitions")
        with current_context().control_dependencies([checked]):
            return [gather_dense(flat, squeeze(where(equal(flat_partitions, i)), axis=[1]))
                    for i in range(num_partitions)]


def dynamic_stitch(indices, data, name=None) -> Symbol:
    """``merged[indices[m][i...], ...] = data[m][i..., ...]`` (TF 1.15's
    ``tf.dynamic_stitch``): ``indices`` int32 tensors, each ``data[m]`` of shape
    ``indices[m].shape + rows``; ``max(indices) + 1`` rows, known once it ran; of a row written
    twice the later ``(m, i)`` wins.  Gradients: each data gets the gradient's rows at its
    indices (TF's)."""
    indices, data = [_tensor(i) for i in indices], [_tensor(d) for d in data]
    if not indices or len(indices) != len(data):
        raise ValueError(f"dynamic_stitch takes as many indices as data (at least one), got "
                         f"{len(indices)} and {len(data)}")
    result = create_op("dynamic_stitch", *indices, *data, num_args=2 * len(data),
                       name=name or "DynamicStitch")
    index, rows = indices[0].get_shape(), data[0].get_shape()
    # what is known before it runs, as TF's: the rows' shape, and their number when every
    # index is a constant
    known = rows.as_list()[index.ndims:] if None not in (index.ndims, rows.ndims) else None
    folded = [_folded(i) for i in indices]
    count = None if None in folded else max((v for f in folded for v in f), default=-1) + 1
    result.graph.declared_shapes[result.outputs[0]] = TensorShape(
        None if known is None else [count] + known)
    return result
