"""Ops without data inputs (zeros, ones, normal, truncated_normal, uniform, constant) and the
variable writes (assign, assign_add, assign_sub).

The random ops take TensorFlow's ``seed`` and ``seed2`` attributes
(:func:`tinyflow.random_ops.get_seed`): with them a node draws from a generator of its own,
seeded once when a session binds it, so a new session repeats the numbers and each run draws new
ones; without them it draws from torch's global generator."""
from __future__ import annotations

from ..nnvm.attrs import no_gradient, same_shape
from ..nnvm.errors import ShapeError
from ..nnvm.op import register_op

__all__ = []


def _shape_attr(attrs, in_shapes, out_shapes):
    shape = tuple(int(d) for d in attrs["shape"])
    if any(d < 0 for d in shape):
        raise ShapeError(f"shape {shape} must be fully known")
    return in_shapes, [shape]


def _dtype_attr(attrs, in_types, out_types):
    # No input to take the type from: the dtype attribute, float32 by default.
    return in_types, [attrs.get("dtype", "float32")]


for _name, _doc in (("zeros", "A tensor of zeros; attr shape."),
                    ("ones", "A tensor of ones; attr shape."),
                    ("normal", "N(mean, stdev^2) samples; attrs shape, mean, stdev, dtype, seed*."),
                    ("truncated_normal", "normal's samples, cut at mean +- 2 stdev; its attrs."),
                    ("uniform", "U(low, high) samples; attrs shape, low, high, dtype, seed*."),
                    ("constant", "A constant; attrs value (flat tuple), shape, dtype.")):
    (register_op(_name).describe(_doc).set_num_inputs(0)
     .set_attr("FInferShape", _shape_attr).set_attr("FInferType", _dtype_attr)
     .set_attr("FGradient", no_gradient))

for _name, _doc in (("assign", "Write value into variable var"),
                    ("assign_add", "var <- var + value"),
                    ("assign_sub", "var <- var - value")):
    (register_op(_name).describe(f"{_doc}; the output is var itself (inputs var, value).")
     .set_num_inputs(2).set_attr("FInferShape", same_shape)
     .set_attr("FMutateInputs", [0]).set_attr("FInplaceOption", [(0, 0)])
     .set_attr("FGradient", no_gradient))
register_op("assign").set_attr("TWriteOnly", True)  # the others read what they write
