"""``tf.IndexedSlices``, TensorFlow's sparse gradient, and ``tf.gradients`` returning one where
TF 1.15's does.

The Gradient pass builds dense gradients: a gather's is a ``_gather_backward`` node adding the
gradient's rows into zeros of the params' shape.  Such a node declares (``FIndexedSlices``, on
its registration) which of its inputs are the rows and the indices, and :func:`gradients` turns
a gradient made of them into an IndexedSlices: its values, the indices and the dense shape, as
TF's ``_GatherV2Grad`` builds them.  The dense node stays in the graph as the IndexedSlices'
dense form (``tf.convert_to_tensor`` of it): nothing runs it unless something reads it, so a
sparse optimizer update allocates no dense gradient.

A lookup of a list of shards reads their concatenation: the gradient of each shard, a part
of the concatenation's (``TCutsRows``), is the slices whose rows are the shard's, as TF's
per-shard gathers give them.

A sum of gradients (the Gradient pass's ``TGradientRole`` "sum") of which one is sparse is
sparse as TF 1.x aggregates it (``_AggregateIndexedSlicesGradients``): the values and indices
concatenated, a dense term taking the indices of all its rows (tensorflow/tensorflow#21243).
"""
from __future__ import annotations

import collections

from ..nnvm.composite import CompositeTensor
from ..nnvm.symbol import NodeEntry, Symbol, current_context
from ..nnvm.tensor_shape import TensorShape
from .api import _tensor, cast, constant, logical_and
from .api import gradients as _dense_gradients
from .array_ops import _folded, boolean_mask, concat, expand_dims, reshape, shape, size
from .dtypes import int64
from .segment_ops import unsorted_segment_sum

__all__ = ["IndexedSlices", "gradients"]  # IndexedSlicesValue: not a tf.* name in TF 1.15

IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue",
                                            ["values", "indices", "dense_shape"])
IndexedSlicesValue.__doc__ = "What ``Session.run`` gives for an IndexedSlices (TF's)."


class IndexedSlices(CompositeTensor):
    """``values[i]`` is the slice ``indices[i]`` (along axis 0) of a tensor of ``dense_shape``
    (TF's ``tf.IndexedSlices``); a row named twice holds the sum.  ``session.run`` gives an
    :data:`IndexedSlicesValue`; ``tf.convert_to_tensor`` the dense tensor."""

    def __init__(self, values, indices, dense_shape=None):
        self._values, self._indices = _tensor(values), _tensor(indices)
        self._dense_shape = None if dense_shape is None else _tensor(dense_shape)
        self._dense = None  # the dense gradient tf.gradients built beside it

    values = property(lambda self: self._values, doc="The slices, ``[N, ...]``.")
    indices = property(lambda self: self._indices, doc="int ``[N]``: the row of each slice.")
    dense_shape = property(lambda self: self._dense_shape, doc="The dense tensor's shape.")
    name = property(lambda self: self._values.name, doc="The values' name.")
    dtype = property(lambda self: self._values.dtype, doc="The values' dtype.")
    op = property(lambda self: self._values.op, doc="The op making the values.")
    graph = property(lambda self: self._values.graph, doc="The graph of the tensors.")
    device = property(lambda self: "", doc="'': every op runs on the session's device.")

    @property
    def shape(self) -> TensorShape:
        """What is known of the dense shape now."""
        if self._dense_shape is None:
            return TensorShape(None)
        value = _folded(self._dense_shape)
        if value is not None:
            return TensorShape(list(value))
        return TensorShape([None]).concatenate(self._values.get_shape()[1:])

    def consumers(self) -> list:
        """The ops reading the values."""
        return self._values.consumers()

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __str__(self):
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape}"
        return f"IndexedSlices(indices={self._indices}, values={self._values}{shape})"

    __repr__ = __str__

    def _components(self) -> tuple:
        parts = (self._values, self._indices, self._dense_shape)
        return parts if self._dense_shape is not None else parts[:2]

    def _from_components(self, values) -> IndexedSlicesValue:
        return IndexedSlicesValue(*values, *[None] * (3 - len(values)))

    def _feed_components(self, value) -> list:
        parts = self._components()
        if not isinstance(value, (tuple, list)) or len(value) not in (len(parts), 3):
            raise TypeError(f"feed for IndexedSlices '{self.name}' must be an "
                            f"IndexedSlicesValue, got {type(value).__name__}")
        return list(zip(parts, value))

    def _as_tensor(self) -> Symbol:
        """The dense tensor: the gradient tf.gradients built, else TF's densification, an
        unsorted_segment_sum of the values into ``dense_shape[0]`` rows."""
        if self._dense is not None:
            return self._dense
        if self._dense_shape is None:
            raise ValueError(f"Tensor conversion requested for IndexedSlices without "
                             f"dense_shape: {self}")
        return unsorted_segment_sum(self._values, self._indices, self._dense_shape[0])


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients="none") -> list:
    """Symbolic d(sum of ys)/dx for each x in ``xs`` (TF's ``tf.gradients``): a tensor, an
    :class:`IndexedSlices` where TF 1.15's is one (a gather's or an embedding lookup's rows,
    several concatenated), or None for an x that ys do not depend on (zeros with
    ``unconnected_gradients="zero"``).  ``stop_gradients`` are held constant."""
    grads = _dense_gradients(ys, xs, grad_ys, name, colocate_gradients_with_ops,
                             gate_gradients, aggregation_method, stop_gradients,
                             unconnected_gradients)
    return [None if grad is None else sparse_view(grad) for grad in grads]


def sparse_view(grad: Symbol):
    """``grad`` as an IndexedSlices (its dense form ``grad`` itself) where TF's gradient is
    one, else ``grad``."""
    slices = _slices_of(grad.outputs[0])
    if slices is None:
        return grad
    slices._dense = grad
    return slices


def _slices_of(entry: NodeEntry) -> IndexedSlices | None:
    node = entry.node
    if node.op is None:
        return None
    roles = node.op.attr("FIndexedSlices")
    roles = roles(node.attrs) if callable(roles) else roles
    if roles is not None:
        grad, indices, shaped = (Symbol([node.inputs[i]]) for i in roles)
        with current_context().name_scope(node.name + "/"):  # TF's GatherV2_grad/Reshape...
            count = expand_dims(size(indices), 0)
            dense_shape = shape(shaped)
            values = reshape(grad, concat([count, dense_shape[1:]], 0))
            return IndexedSlices(values, reshape(indices, count), dense_shape)
    if node.op.attr("TCutsRows") and node.attrs.get("axis") == 0:
        return _part(node, entry.index)
    if node.op.attr("TGradientRole") != "sum":
        return None
    terms = [_slices_of(e) for e in node.inputs]
    if all(term is None for term in terms):
        return None
    with current_context().name_scope(node.name + "/"):
        return _concatenated([Symbol([e]) if term is None else term
                              for e, term in zip(node.inputs, terms)])


def _part(node, k: int) -> IndexedSlices | None:
    """The slices of ``node``'s input 0 among its output ``k``'s rows (TF's gradient of a
    shard of an embedding lookup: the ids it holds, at their rows in it), a number of rows
    known when the graph runs; None when input 0 is dense or the parts' rows are not known."""
    whole = _slices_of(node.inputs[0])
    shapes = [Symbol([e]).get_shape() for e in node.inputs[1:]] if whole is not None else []
    rows = [s[0].value if s.ndims else None for s in shapes]
    if whole is None or None in rows[:k + 1]:
        return None
    start = sum(rows[:k])
    with current_context().name_scope(node.name + "/"):
        offset = cast(constant(start), whole.indices.dtype)
        inside = logical_and(whole.indices >= offset, whole.indices < offset + rows[k])
        return IndexedSlices(boolean_mask(whole.values, inside),
                             boolean_mask(whole.indices, inside) - offset,
                             shape(Symbol([node.inputs[k + 1]])))


def _concatenated(terms: list) -> IndexedSlices | None:
    """TF 1.x's sum of gradients one of which is sparse: the values and the indices laid end
    to end (int64 indices when one is), a dense term over all its rows; None when a dense
    term's rows are not known as the graph is built."""
    slices = []
    for term in terms:
        if isinstance(term, Symbol):
            rows = term.get_shape()[0].value if term.get_shape().ndims else None
            if rows is None:
                return None
            term = IndexedSlices(term, constant(list(range(rows)), dtype="int32"),
                                 shape(term))
        slices.append(term)
    indices = [s.indices for s in slices]
    if any(i.dtype == int64 for i in indices):
        indices = [i if i.dtype == int64 else cast(i, int64) for i in indices]
    return IndexedSlices(concat([s.values for s in slices], 0), concat(indices, 0),
                         slices[0].dense_shape)
