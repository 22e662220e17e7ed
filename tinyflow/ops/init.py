"""Ops without data inputs (zeros, ones, normal, truncated_normal, uniform, constant) and the
variable writes (assign, assign_add, assign_sub).

The random ops (normal, truncated_normal, uniform) take TensorFlow's ``seed`` and ``seed2``
attributes (``tf.get_seed``: :meth:`tinyflow.nnvm.symbol.GraphContext.op_seeds`): with them a
node draws from its session's generator for it, so a new session repeats the numbers and each run
draws new ones; without them from torch's global generator (see
:mod:`tinyflow.frontend.random_ops`). Without a ``shape`` attribute they take one input, read only
for its shape (``tf.random_normal(tf.shape(x))``)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..nnvm.attrs import no_gradient, same_shape
from ..nnvm.errors import ShapeError
from ..nnvm.op import Op, register_op

__all__ = []


def _shape_attr(attrs, in_shapes, out_shapes):
    shape = tuple(int(d) for d in attrs["shape"])
    if any(d < 0 for d in shape):
        raise ShapeError(f"shape {shape} must be fully known")
    return in_shapes, [shape]


def _dtype_attr(attrs, in_types, out_types):
    # No input to take the type from: the dtype attribute, float32 by default.
    return in_types, [attrs.get("dtype", "float32")]


def _shape_attr_or_like(attrs, in_shapes, out_shapes):
    if "shape" in attrs:
        return _shape_attr(attrs, in_shapes, out_shapes)
    return in_shapes, [in_shapes[0]]  # the shape of input 0, "like"


for _name, _doc in (("zeros", "A tensor of zeros; attr shape."),
                    ("ones", "A tensor of ones; attr shape."),
                    ("constant", "A constant; attrs value (flat tuple), shape, dtype.")):
    (register_op(_name).describe(_doc).set_num_inputs(0)
     .set_attr("FInferShape", _shape_attr).set_attr("FInferType", _dtype_attr)
     .set_attr("FGradient", no_gradient))

for _name, _doc in (("normal", "N(mean, stdev^2) samples; attrs mean, stdev, dtype, seed*."),
                    ("truncated_normal", "normal's samples, cut at mean +- 2 stdev; its attrs."),
                    ("uniform", "U(low, high) samples; attrs low, high, dtype, seed*.")):
    (register_op(_name).describe(f"{_doc} Attr shape, or input like (read for its shape).")
     .set_num_inputs(lambda attrs: 0 if "shape" in attrs else 1)
     .set_attr("FIgnoreInputs", lambda attrs: [] if "shape" in attrs else [0])
     .set_attr("FInferShape", _shape_attr_or_like).set_attr("FInferType", _dtype_attr)
     .set_attr("FGradient", no_gradient).set_attr("TRandom", True))

def _constant_value(node, inputs):
    """A fetched constant's value, from its attributes: never computed in Lua (a string one
    could not be)."""
    dtype = node.attrs.get("dtype", "float32")
    value = np.array(node.attrs["value"], dtype=object if dtype == "string" else dtype)
    if value.size != np.prod(node.attrs["shape"]):  # a document's value may not fill it
        raise ShapeError(f"constant {getattr(node, 'name', '')!r}: {value.size} values do "
                         f"not fill its shape {tuple(node.attrs['shape'])}")
    value = value.reshape(node.attrs["shape"])
    return value[()] if value.ndim == 0 else value


register_op("constant").set_attr("FPythonCompute", _constant_value)
register_op("constant").set_attr("FFoldValue", lambda attrs, values, shapes: [np.asarray(
    _constant_value(SimpleNamespace(attrs=attrs), []))])

for _name, _doc in (("assign", "Write value into variable var"),
                    ("assign_add", "var <- var + value"),
                    ("assign_sub", "var <- var - value")):
    (register_op(_name).describe(f"{_doc}; the output is var itself (inputs var, value).")
     .set_num_inputs(2).set_attr("FInferShape", same_shape)
     .set_attr("FMutateInputs", [0]).set_attr("FInplaceOption", [(0, 0)])
     .set_attr("FGradient", no_gradient))
register_op("assign").set_attr("TWriteOnly", True)  # the others read what they write


# TTFType: TensorFlow's op type (op.type) where it is not our name in CamelCase
# a constant is computed once, when the executor is built (TFoldable), as TF keeps its tensor
Op.get("constant").set_attr("TTFType", "Const").set_attr("TFoldable", True)
