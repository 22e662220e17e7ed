"""TensorFlow 1.15's writes into rows or elements of a variable beyond ``tf.scatter_update`` /
``scatter_add`` / ``scatter_sub``: ``tf.scatter_nd_update`` / ``_add`` / ``_sub``,
``tf.scatter_mul`` / ``div`` / ``max`` / ``min`` and ``tf.batch_scatter_update``.

Each is one ``assign`` of the variable's new value, composed of existing ops: the
``tensor_scatter_nd_*`` ops for the nd forms; for the row forms, the updates of each row
combined first (``unsorted_segment_prod`` / ``max`` / ``min``: a row named several times gets
all its updates, as TF's), then applied.  As ``tf.scatter_update``'s, the result is the
variable holding its new value; the ops reading it run before the write (OrderMutation).
"""
from __future__ import annotations

import numpy as np

from ..nnvm.symbol import Symbol, current_context
from ..nnvm.variables import assign
from .api import _tensor, cast, constant, logical_and, maximum, minimum, reduce_all
from .array_ops import concat, expand_dims, shape
from .control_flow_ops import Assert
from .indexing_ops import tensor_scatter_nd_add, tensor_scatter_nd_sub, tensor_scatter_nd_update
from .segment_ops import unsorted_segment_max, unsorted_segment_min, unsorted_segment_prod

__all__ = ["batch_scatter_update", "scatter_div", "scatter_max", "scatter_min", "scatter_mul",
           "scatter_nd_add", "scatter_nd_sub", "scatter_nd_update"]


def _operands(function, ref, indices, updates):
    """The variable, the indices (Python ints as int32, as TF converts them) and the updates
    (numbers as the variable's dtype); TypeError naming ``function`` for a ref that is not a
    variable."""
    if not isinstance(ref, Symbol) or ref.node.kind != "variable":
        raise TypeError(f"tf.{function} writes to a tf.Variable, got {ref!r}")
    if not isinstance(indices, Symbol):
        indices = constant(indices, dtype=None if np.asarray(indices).size else "int32")
    if not isinstance(updates, Symbol):
        updates = constant(updates, dtype=ref.node.attrs.get("dtype", "float32"))
    return ref, indices, updates


def _nd(function, combine, default_name):
    def update(ref, indices, updates, use_locking=True, name=None) -> Symbol:
        ref, indices, updates = _operands(function, ref, indices, updates)
        return assign(ref, combine(ref, indices, updates), name=name or default_name)
    update.__name__ = function
    update.__doc__ = (f"TensorFlow 1.15's ``tf.{function}``: the variable ``ref`` with "
                      f"``updates`` written at the coordinates ``indices`` as "
                      f"``tf.tensor_{function}`` computes them; the result is the variable's "
                      f"new value.")
    return update


scatter_nd_update = _nd("scatter_nd_update", tensor_scatter_nd_update, "ScatterNdUpdate")
scatter_nd_add = _nd("scatter_nd_add", tensor_scatter_nd_add, "ScatterNdAdd")
scatter_nd_sub = _nd("scatter_nd_sub", tensor_scatter_nd_sub, "ScatterNdSub")


def _rows(function, segment, apply, default_name, what):
    def update(ref, indices, updates, use_locking=False, name=None) -> Symbol:
        ref, indices, updates = _operands(function, ref, indices, updates)
        rows = ref.get_shape().as_list()[0] if ref.get_shape().ndims else None
        count = shape(ref)[0] if rows is None else rows
        # TF's kernel refuses a row outside [0, N) when it runs (the segment ops would drop a
        # negative one)
        inside = reduce_all(logical_and(indices >= 0, indices < cast(count, indices.dtype)))
        told = f"tf.{function}: indices must be rows of the variable, in [0, {rows or 'N'}): got"
        check = Assert(inside, [told, indices])
        with current_context().control_dependencies([check]):
            combined = segment(updates, indices, count)
        return assign(ref, apply(ref, combined), name=name or default_name)
    update.__name__ = function
    update.__doc__ = (f"TensorFlow 1.15's ``tf.{function}``: ``ref[indices[i], ...] {what}"
                      f" updates[i, ...]`` for the variable ``ref``, a row named several times "
                      f"getting every update; the result is the variable's new value.")
    return update


scatter_mul = _rows("scatter_mul", unsorted_segment_prod, lambda r, u: r * u, "ScatterMul",
                    "*=")
scatter_div = _rows("scatter_div", unsorted_segment_prod, lambda r, u: r / u, "ScatterDiv",
                    "/=")
scatter_max = _rows("scatter_max", unsorted_segment_max, maximum, "ScatterMax",
                    "= max(itself,")
scatter_min = _rows("scatter_min", unsorted_segment_min, minimum, "ScatterMin",
                    "= min(itself,")


def batch_scatter_update(ref, indices, updates, use_locking=True, name=None) -> Symbol:
    """TensorFlow 1.15's ``tf.batch_scatter_update``: ``ref[b..., indices[b..., i], ...] =
    updates[b..., i, ...]`` for the variable ``ref`` of shape ``[B..., N, ...]`` and
    ``indices`` of shape ``[B..., K]`` (the batch dims and K known as the graph is built); as
    TF, a :func:`scatter_nd_update` at the indices with their batch coordinates in front."""
    ref, indices, updates = _operands("batch_scatter_update", ref, indices, updates)
    known = indices.get_shape()
    if known.ndims is None or not known.is_fully_defined():
        raise ValueError(f"tf.batch_scatter_update: the shape of {indices.name} must be known "
                         f"as the graph is built, got {known}")
    dims = known.as_list()
    batch = np.indices(dims[:-1]).reshape(len(dims) - 1, -1).T  # each batch coordinate
    grid = np.broadcast_to(batch.reshape(*dims[:-1], 1, len(dims) - 1),
                           [*dims, len(dims) - 1])
    coordinates = concat([constant(grid.astype(indices.dtype.as_numpy_dtype)),
                          expand_dims(_tensor(indices), -1)], axis=-1)
    return scatter_nd_update(ref, coordinates, updates, name=name or "BatchScatterUpdate")
