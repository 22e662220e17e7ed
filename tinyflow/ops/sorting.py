"""Sorting and counting ops of TensorFlow 1.15: sort (tf.sort and tf.argsort), unique
(tf.unique, tf.unique_with_counts), setdiff1d and bincount.

``sort`` orders along attr ``axis``, ascending or (attr ``descending``) descending, equal
elements in their order (TF's argsort gives that in both directions); its outputs are the values
and their int32 indices, its gradient scatters the values' gradient back (``_sort_backward``).
``unique``, ``setdiff1d`` and ``bincount`` give outputs whose length the data decides
(TShapeAtRunTime): TF's order (first occurrences; x's order); no gradient but bincount's
weights', as TF 1.15's.
Bodies: ``tinyflow/lua_ops/sorting/``.
"""
from __future__ import annotations

from ..nnvm.errors import ShapeError
from ..nnvm.op import register_op
from ..nnvm.symbol import create_op
from .elemwise import dtype_kind

__all__ = []

_INDEX = ("int32", "int64")


def _axis_of(attrs, shape):
    axis = attrs.get("axis", -1)
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise ShapeError(f"axis must be an integer, got {axis!r}")
    if shape is not None and not -len(shape) <= axis < max(len(shape), 1):
        raise ShapeError(f"axis {axis} is out of range for a tensor of shape {shape}")
    return axis


def _sort_shape(attrs, in_shapes, out_shapes):
    x = in_shapes[0] or out_shapes[0] or out_shapes[1]
    if x is not None and len(x) == 0:
        raise ShapeError("sort takes a tensor of rank 1 or more, got a scalar")
    _axis_of(attrs, x)
    return [x], [x, x]


def _sort_type(attrs, in_types, out_types):
    x = in_types[0] or out_types[0]
    if x is not None and dtype_kind(x) not in ("float", "int"):
        raise TypeError(f"sort takes a float or integer tensor, got {x}")
    return [x], [x, "int32"]


(register_op("sort").describe("x sorted along attr axis (ascending, or descending with attr "
                              "descending), equal elements in their order: the values and their "
                              "int32 indices.")
 .set_num_inputs(1).set_num_outputs(2).set_attr("FInferShape", _sort_shape)
 .set_attr("FInferType", _sort_type).set_attr("TTFType", "TopKV2")
 .set_attr("FGradient", lambda n, g: [create_op(
     "_sort_backward", g[0], n.outputs[1], axis=n.attrs.get("axis", -1), gather=False)]))


def _sort_backward_shape(attrs, in_shapes, out_shapes):
    g, indices = in_shapes
    shape = g or indices or out_shapes[0]
    for other in (g, indices):
        if other is not None and shape is not None and other != shape:
            raise ShapeError(f"gradient shape {g} differs from the indices' {indices}")
    _axis_of(attrs, shape)
    return [shape, shape], [shape]


def _sort_backward_type(attrs, in_types, out_types):
    if in_types[1] is not None and in_types[1] not in _INDEX:
        raise TypeError(f"sort's indices must be int32 or int64, got {in_types[1]}")
    return in_types, [in_types[0] or out_types[0]]


(register_op("_sort_backward").describe("g put back where sort took each value from along attr "
                                        "axis (out[..., i[k], ...] = g[..., k, ...]), or, with "
                                        "attr gather, taken from there (out[k] = g[i[k]]).")
 .set_num_inputs(2).set_attr("FInferShape", _sort_backward_shape)
 .set_attr("FInferType", _sort_backward_type).set_attr("TIsBackward", True)
 .set_attr("FGradient", lambda n, g: [create_op(
     "_sort_backward", g[0], n.inputs[1], axis=n.attrs.get("axis", -1),
     gather=not n.attrs.get("gather", False)), None]))


# -- unique, setdiff1d, bincount: as many elements as the data has -------------------------------
def _vector(name, what):
    def check(shape):
        if shape is not None and len(shape) != 1:
            raise ShapeError(f"{name}: {what} must be a vector (rank 1), got shape {shape}")
    return check


def _unique_shape(attrs, in_shapes, out_shapes):
    _vector("unique", "x")(in_shapes[0])
    return in_shapes, [out_shapes[0], in_shapes[0], out_shapes[2]]


def _index_type(attrs, name):
    dtype = attrs.get(name, "int32")
    if dtype not in _INDEX:
        raise TypeError(f"{name} must be int32 or int64, got {dtype}")
    return dtype


(register_op("unique").describe("x's distinct elements in the order they first occur, each "
                                "element's position among them (attr out_idx dtype) and how "
                                "often each occurs: TF's UniqueWithCounts.")
 .set_num_inputs(1).set_num_outputs(3).set_attr("FInferShape", _unique_shape)
 .set_attr("FInferType", lambda attrs, in_types, out_types: (
     in_types, [in_types[0], _index_type(attrs, "out_idx"), _index_type(attrs, "out_idx")]))
 .set_attr("TShapeAtRunTime", True).set_attr("TUncapturable", True))


def _setdiff_shape(attrs, in_shapes, out_shapes):
    for shape, what in zip(in_shapes, ("x", "y")):
        _vector("setdiff1d", what)(shape)
    return in_shapes, list(out_shapes)


def _setdiff_type(attrs, in_types, out_types):
    x, y = in_types
    if x is not None and y is not None and x != y:
        raise TypeError(f"setdiff1d: x ({x}) and y ({y}) must have one dtype")
    return in_types, [x, _index_type(attrs, "index_dtype")]


(register_op("setdiff1d").describe("The elements of x not in y, in x's order (repeats kept), "
                                   "and their positions in x (attr index_dtype): TF's ListDiff.")
 .set_num_inputs(2).set_num_outputs(2).set_attr("FInferShape", _setdiff_shape)
 .set_attr("FInferType", _setdiff_type).set_attr("TTFType", "ListDiff")
 .set_attr("TShapeAtRunTime", True).set_attr("TUncapturable", True))


def _bincount_shape(attrs, in_shapes, out_shapes):
    if len(in_shapes) == 2 and None not in in_shapes and in_shapes[0] != in_shapes[1]:
        raise ShapeError(f"bincount: weights of shape {in_shapes[1]} are not arr's "
                         f"{in_shapes[0]}")
    for name in ("minlength", "maxlength"):
        value = attrs.get(name)
        if value is not None and (not isinstance(value, int) or value < 0):
            raise ShapeError(f"bincount: {name} must be a non-negative integer, got {value!r}")
    return in_shapes, list(out_shapes)


def _bincount_type(attrs, in_types, out_types):
    if in_types[0] is not None and in_types[0] != "int32":
        raise TypeError(f"bincount: arr must be int32, got {in_types[0]}")
    dtype = in_types[1] if len(in_types) == 2 else attrs.get("dtype", "int32")
    if dtype is not None and dtype not in ("int32", "int64", "float32", "float64"):
        raise TypeError(f"bincount: weights must be int32, int64, float32 or float64, got "
                        f"{dtype}")
    return in_types, [dtype]


def _bincount_grad(node, grads):
    # TF 1.15 sums weights by unsorted_segment_sum: each weight's gradient is its bin's (0 for
    # a negative value); none without weights (the counts of int values)
    if len(node.inputs) == 1:
        return [None]
    bins = [node.attrs.get("minlength"), node.attrs.get("maxlength")]
    return [None, create_op("_segment_gather", grads[0], node.inputs[0], scale="none",
                            bins=bins)]


(register_op("bincount").describe("How often each value 0, 1, ... occurs in arr (or, with a "
                                  "second input, the sum of its weights): max(arr) + 1 bins, "
                                  "at least attr minlength, at most attr maxlength.")
 .set_num_inputs(lambda attrs: 2 if attrs.get("weighted") else 1)
 .set_attr("FInferShape", _bincount_shape).set_attr("FInferType", _bincount_type)
 .set_attr("TShapeAtRunTime", True).set_attr("TUncapturable", True)
 .set_attr("FGradient", _bincount_grad))
