"""TensorFlow 1.15's segment reductions (``tf.math.unsorted_segment_*``, ``tf.math.segment_*``,
also as ``tf.*``): ops of tinyflow/ops/segment.py, which says what an empty segment holds and
which ids are refused.

``num_segments`` is a Python int, or an int scalar tensor computed from shapes and constants
(``tf.shape(x)[0]``), known when a session binds the graph; one computed from a fed value is
an error there (TinyFlow fixes every shape at bind).  The sorted ops' output has
``segment_ids[-1] + 1`` rows, known once the op ran (ops reading it are bound then:
docs/control_flow.md).
"""
from __future__ import annotations

import numbers

from ..nnvm.symbol import NodeEntry, Symbol, create_op
from ..nnvm.tensor_shape import TensorShape
from ..ops.segment import KINDS, SORTED_KINDS
from .array_ops import _folded, _tensor, shape_value, shaped_by_value

__all__ = [f"unsorted_segment_{kind}" for kind in KINDS] + [
    f"segment_{kind}" for kind in SORTED_KINDS]


def _camel(kind):
    return "".join(part.capitalize() for part in kind.split("_"))


def _unsorted(kind):
    def reduce(data, segment_ids, num_segments, name=None) -> Symbol:
        data, ids = _tensor(data), _tensor(segment_ids)
        name = name or f"UnsortedSegment{_camel(kind)}"
        op = f"unsorted_segment_{kind}"
        if isinstance(num_segments, NodeEntry):
            num_segments = Symbol([num_segments])
        if isinstance(num_segments, Symbol):
            folded = _folded(num_segments)
            if folded is None:  # computed from shapes: folded when a session binds the graph
                value = shape_value([num_segments], op)
                result = shaped_by_value(op, [data, ids], value, name,
                                         shape_attr="num_segments")
                known = data.get_shape()
                rank = ids.get_shape().ndims
                if known.ndims is not None and rank is not None:
                    result.set_shape(TensorShape([None] + known.as_list()[rank:]))
                return result
            num_segments = folded[0]
        if not isinstance(num_segments, numbers.Integral) or isinstance(num_segments, bool):
            raise TypeError(f"tf.{op}: num_segments must be an integer or an int tensor, "
                            f"got {num_segments!r}")
        if num_segments < 0:  # TF's shape function's message
            raise ValueError(f"tf.{op}: num_segments must be non-negative, got {num_segments}")
        return create_op(op, data, ids, num_segments=int(num_segments), name=name)
    reduce.__name__ = reduce.__qualname__ = f"unsorted_segment_{kind}"
    reduce.__doc__ = (f"Row ``s`` of the result: the {kind} of ``data``'s slices whose id in "
                      f"``segment_ids`` (a prefix of data's shape) is ``s``, for ``s`` below "
                      f"``num_segments``; a negative id is dropped.")
    return reduce


def _sorted(kind):
    def reduce(data, segment_ids, name=None) -> Symbol:
        data = _tensor(data)
        result = create_op(f"segment_{kind}", data, _tensor(segment_ids),
                           name=name or f"Segment{_camel(kind)}")
        known = data.get_shape()  # what is known before it runs, as TF's: [None] + data's rest
        if known.ndims:
            result.graph.declared_shapes[result.outputs[0]] = TensorShape(
                [None] + known.as_list()[1:])
        return result
    reduce.__name__ = reduce.__qualname__ = f"segment_{kind}"
    reduce.__doc__ = (f"Row ``s`` of the result: the {kind} of ``data``'s rows whose id in the "
                      f"sorted vector ``segment_ids`` is ``s``; ``segment_ids[-1] + 1`` rows, "
                      f"an empty segment 0{' (1 for prod)' if kind == 'prod' else ''}.")
    return reduce


for _kind in KINDS:
    globals()[f"unsorted_segment_{_kind}"] = _unsorted(_kind)
for _kind in SORTED_KINDS:
    globals()[f"segment_{_kind}"] = _sorted(_kind)
