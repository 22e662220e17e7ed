"""Segment reductions of TensorFlow 1.15: ``unsorted_segment_<kind>(data, segment_ids)`` with
attr ``num_segments`` (unsorted_segment_sum, unsorted_segment_mean, unsorted_segment_sqrt_n,
unsorted_segment_max, unsorted_segment_min, unsorted_segment_prod), and
``segment_<kind>(data, segment_ids)`` on sorted ids (segment_sum, segment_mean, segment_max,
segment_min, segment_prod), whose output has ``segment_ids[-1] + 1`` rows, a shape known once
it ran (TShapeAtRunTime).  TF 1.15 has no sorted sqrt_n.

``data``'s leading axes are ``segment_ids``' (one axis for the sorted ops); output row ``s``
reduces the slices of ``data`` whose id is ``s``.  An empty segment holds what TF's kernels
write: 0 for sum / mean / sqrt_n, the dtype's lowest / highest value for an unsorted max / min,
1 for prod, 0 for a sorted max / min.  An unsorted op drops a negative id (TF's CPU kernel);
an id past ``num_segments``, or sorted ids that decrease or start below 0, are TF's
InvalidArgumentError (bodies: ``tinyflow/lua_ops/segment/``, checked on the host).
Gradients as TF 1.15's math_grad.py, built on ``_segment_gather`` (TF's
``_GatherDropNegatives``: each id's row of the output gradient, 0 for a negative id).
"""
from __future__ import annotations

from ..nnvm.errors import ShapeError
from ..nnvm.op import register_op
from ..nnvm.symbol import create_op
from .elemwise import dtype_kind

__all__ = ["KINDS", "SORTED_KINDS", "num_segments_of"]

KINDS = ("sum", "mean", "sqrt_n", "max", "min", "prod")
SORTED_KINDS = ("sum", "mean", "max", "min", "prod")  # TF 1.15 has no segment_sqrt_n


def num_segments_of(attrs) -> int:
    """Attr ``num_segments``: an int, or the one-value tuple a folded tensor gives."""
    value = attrs["num_segments"]
    if isinstance(value, (tuple, list)) and len(value) == 1:
        value = value[0]
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ShapeError(f"num_segments must be a non-negative integer, got {value!r}")
    return value


def _segment_shape(ordered):
    def rule(attrs, in_shapes, out_shapes):
        data, ids = in_shapes
        if ordered and ids is not None and len(ids) != 1:
            raise ShapeError(f"segment_ids must be a vector (rank 1), got shape {ids}")
        if data is not None and ids is not None:
            known = data[:len(ids)]
            if len(data) < len(ids) or any(a is not None and b is not None and a != b
                                           for a, b in zip(known, ids)):
                raise ShapeError(f"data.shape = {list(data)} does not start with "
                                 f"segment_ids.shape = {list(ids)}")
        if ordered or data is None or ids is None:  # sorted: rows known once it ran
            return in_shapes, list(out_shapes)
        return in_shapes, [(num_segments_of(attrs),) + tuple(data[len(ids):])]
    return rule


def _segment_type(kind):
    def rule(attrs, in_types, out_types):
        data, ids = in_types
        if ids is not None and ids not in ("int32", "int64"):
            raise TypeError(f"segment_ids must be int32 or int64, got {ids}")
        accept = ("float",) if kind == "sqrt_n" else ("float", "int")
        if data is not None and dtype_kind(data) not in accept:
            raise TypeError(f"segment {kind} takes {' or '.join(accept)} data, got {data}")
        return in_types, [data or out_types[0]]
    return rule


def _sibling(node, kind):
    """The op of ``node``'s family (sorted or not) reducing by ``kind``, as a function."""
    if "num_segments" in node.attrs:
        n = node.attrs["num_segments"]
        return lambda x: create_op(f"unsorted_segment_{kind}", x, node.inputs[1], num_segments=n)
    return lambda x: create_op(f"segment_{kind}", x, node.inputs[1])


def _gather(node, rows, scale="none"):
    """TF's _GatherDropNegatives: row ids[i] of ``rows`` (0 for a negative id), scaled."""
    attrs = {k: v for k, v in node.attrs.items() if k == "num_segments"}
    return create_op("_segment_gather", rows, node.inputs[1], scale=scale, **attrs)


def _indicator(cond, like):
    """1 where ``cond``, else 0, in ``like``'s dtype (and shape)."""
    return create_op("where", cond, create_op("ones_like", like), create_op("zeros_like", like))


def _extremum_grad(node, grads):
    # TF's _UnsortedSegmentMinOrMaxGrad: the gradient split evenly among the elements equal to
    # their segment's result
    data = node.inputs[0]
    selected = create_op("equal", data, _gather(node, node.outputs[0]))
    counts = _sibling(node, "sum")(_indicator(selected, data))
    share = _gather(node, grads[0] / counts)
    return [create_op("where", selected, share, create_op("zeros_like", data)), None]


def _prod_grad(node, grads):
    # TF's _UnsortedSegmentProdGrad: a segment with two zeros has gradient 0; with one, that
    # element's is the product of the others; else the product over the element
    data, product = node.inputs[0], node.outputs[0]
    is_zero = create_op("equal", data, create_op("zeros_like", data))
    zeros = _sibling(node, "sum")(_indicator(is_zero, data))
    grad = create_op("where", create_op("less_equal", zeros, create_op("ones_like", zeros)),
                     grads[0], create_op("zeros_like", grads[0]))
    nonzero = create_op("where", is_zero, create_op("ones_like", data), data)
    others = _gather(node, _sibling(node, "prod")(nonzero))
    partial = create_op("where", is_zero, others, _gather(node, product) / nonzero)
    return [_gather(node, grad) * partial, None]


_GRADIENTS = {
    "sum": lambda n, g: [_gather(n, g[0]), None],
    "mean": lambda n, g: [_gather(n, g[0], "mean"), None],
    "sqrt_n": lambda n, g: [_gather(n, g[0], "sqrt_n"), None],
    "max": _extremum_grad, "min": _extremum_grad, "prod": _prod_grad,
}
_WORDS = {"sum": "sum", "mean": "mean", "sqrt_n": "sum / sqrt(count)", "max": "maximum",
          "min": "minimum", "prod": "product"}
for _kind in KINDS:
    (register_op(f"unsorted_segment_{_kind}")
     .describe(f"Row s: the {_WORDS[_kind]} of data's slices whose segment id is s, for s < "
               "attr num_segments (negative ids dropped).")
     .set_num_inputs(2).set_attr("FInferShape", _segment_shape(False))
     .set_attr("FInferType", _segment_type(_kind)).set_attr("FGradient", _GRADIENTS[_kind])
     .set_attr("TUncapturable", True))  # ids checked on the host
for _kind in SORTED_KINDS:
    (register_op(f"segment_{_kind}")
     .describe(f"Row s: the {_WORDS[_kind]} of data's rows whose (sorted) segment id is s; "
               "ids[-1] + 1 rows, known once it ran.")
     .set_num_inputs(2).set_attr("FInferShape", _segment_shape(True))
     .set_attr("FInferType", _segment_type(_kind)).set_attr("FGradient", _GRADIENTS[_kind])
     .set_attr("TShapeAtRunTime", True).set_attr("TUncapturable", True))


# -- _segment_gather: the gradients' gather ------------------------------------------------------
def _gather_shape(attrs, in_shapes, out_shapes):
    rows, ids = in_shapes
    if rows is None or ids is None:
        return in_shapes, out_shapes
    if "num_segments" in attrs and rows[0] is not None and rows[0] != num_segments_of(attrs):
        raise ShapeError(f"{rows[0]} rows to gather, not num_segments {attrs['num_segments']}")
    return in_shapes, [tuple(ids) + tuple(rows[1:])]


def _gather_type(attrs, in_types, out_types):
    return in_types, [in_types[0] or out_types[0]]


def _gather_grad(node, grads):
    # out[i] = rows[ids[i]] * scale(count of ids[i]): d rows[s] = that scale times the sum of
    # grads[i] over ids[i] = s, the segment reduction of the same kind; rows of a weighted
    # bincount (attr bins: its minlength, maxlength): the bincount of grads, as many bins
    kind = {"none": "sum", "mean": "mean", "sqrt_n": "sqrt_n"}[node.attrs["scale"]]
    if "bins" in node.attrs:
        low, high = node.attrs["bins"]
        return [create_op("bincount", node.inputs[1], grads[0], weighted=True, minlength=low,
                          maxlength=high), None]
    return [_sibling(node, kind)(grads[0]), None]


(register_op("_segment_gather")
 .describe("out[i] = rows[ids[i]] (0 for a negative id), divided by the id's count (attr "
           "scale 'mean') or its square root ('sqrt_n'); attr num_segments when the rows are "
           "an unsorted reduction's, bins (minlength, maxlength) when a weighted bincount's.")
 .set_num_inputs(2).set_attr("FInferShape", _gather_shape)
 .set_attr("FInferType", _gather_type).set_attr("FGradient", _gather_grad)
 .set_attr("TIsBackward", True).set_attr("TUncapturable", True))


def _check_gather(node):
    scale = node.attrs.get("scale")
    if scale not in ("none", "mean", "sqrt_n"):
        return f"scale {scale!r} is not one of 'none', 'mean', 'sqrt_n'"
    if scale != "none" and "bins" in node.attrs:
        return "a bincount's rows are gathered unscaled (scale 'none')"
    if scale == "sqrt_n" and "num_segments" not in node.attrs:  # no sorted sqrt_n in TF
        return "scale 'sqrt_n' gathers an unsorted reduction's rows: it needs num_segments"
    return None


register_op("_segment_gather").set_attr("FCheckNode", _check_gather)
