"""TensorFlow 1.15's indexing at coordinate vectors: gather_nd, scatter_nd, the
tensor_scatter_nd family and reverse_sequence (ops in tinyflow/ops/indexing.py).  Indices are
int32 or int64 tensors; each is checked when the graph runs, and one out of range is TF's
InvalidArgumentError naming the node.  ``x[i]`` and ``tf.strided_slice`` with tensors:
tinyflow/ops/indexing.py's ``tensor_index``.
"""
from __future__ import annotations

from ..nnvm.symbol import Symbol, create_op
from .array_ops import ShapeValue, _static_shape, _tensor, shaped_by_value

__all__ = ["gather_nd", "reverse_sequence", "scatter_nd", "tensor_scatter_add",
           "tensor_scatter_nd_add", "tensor_scatter_nd_sub", "tensor_scatter_nd_update",
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


_MODE_WORDS = {"update": "written", "add": "added", "sub": "subtracted"}
tensor_scatter_nd_update = tensor_scatter_update = _tensor_scatter("update", "Update")
tensor_scatter_nd_add = tensor_scatter_add = _tensor_scatter("add", "Add")
tensor_scatter_nd_sub = tensor_scatter_sub = _tensor_scatter("sub", "Sub")


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
