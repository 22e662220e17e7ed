"""Ops without data inputs (zeros, ones, normal, uniform, constant) and the variable writes
(assign, assign_add, assign_sub)."""
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
                    ("normal", "Samples of N(mean, stdev^2); attrs shape, mean=0, stdev=1."),
                    ("uniform", "Samples of U(low, high); attrs shape, low=0, high=1."),
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
