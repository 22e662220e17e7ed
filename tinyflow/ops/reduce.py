"""Reductions: sum, mean, max over axes, and argmax.  Bodies in ``lua_ops/ops/<name>.lua``."""
from __future__ import annotations

from ..nnvm.attrs import no_gradient
from ..nnvm.errors import ShapeError
from ..nnvm.op import register_op
from ..nnvm.symbol import create_op

__all__ = ["normalize_axis"]


def normalize_axis(axis, rank):
    """Axis attribute (int, tuple or None = all) -> sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(rank))
    axis = (axis,) if isinstance(axis, int) else tuple(axis)
    for a in axis:
        if not -rank <= a < rank:
            raise ShapeError(f"axis {a} is out of range for rank {rank}")
    return tuple(sorted({a % rank for a in axis}))


def _reduce_shape(attrs, in_shapes, out_shapes):
    x = in_shapes[0]
    if x is None:
        return in_shapes, out_shapes
    axis = normalize_axis(attrs.get("axis"), len(x))
    if attrs.get("keepdims", False):
        out = tuple(1 if i in axis else d for i, d in enumerate(x))
    else:
        out = tuple(d for i, d in enumerate(x) if i not in axis)
    return in_shapes, [out]


def _broadcast_gradient(mean):
    """FGradient of reduce_sum (reduce_mean with ``mean``): the output's gradient broadcast
    back to the input's shape (and divided by the count for a mean)."""
    def gradient(node, grads):
        # Reduced axes were dropped unless keepdims (or all axes went): put them back.
        axis = None if node.attrs.get("keepdims", False) else node.attrs.get("axis")
        return [create_op("broadcast_like", grads[0], node.inputs[0], axis=axis, mean=mean)]
    return gradient


def _max_grad(node, grads):
    # Reduced axes were dropped unless keepdims (or all axes went): put them back to broadcast.
    axis = None if node.attrs.get("keepdims", False) else node.attrs.get("axis")
    x = node.inputs[0]
    like_out = create_op("broadcast_like", node.outputs[0], x, axis=axis)
    like_g = create_op("broadcast_like", grads[0], x, axis=axis)
    return [like_g * create_op("equal", x, like_out)]


for _name, _doc, _grad in (
        ("reduce_sum", "Sum over axis (None: all); keepdims keeps reduced axes as size 1.",
         _broadcast_gradient(False)),
        ("reduce_mean", "Mean over axis (None: all); keepdims keeps reduced axes as size 1.",
         _broadcast_gradient(True)),
        ("reduce_max", "Max over axis (None: all); the gradient goes to every maximum.",
         _max_grad)):
    (register_op(_name).describe(_doc).set_num_inputs(1)
     .set_attr("FInferShape", _reduce_shape).set_attr("FGradient", _grad))


def _argmax_shape(attrs, in_shapes, out_shapes):
    x = in_shapes[0]
    if x is None:
        return in_shapes, out_shapes
    (axis,) = normalize_axis(attrs.get("axis", 0), len(x))
    return in_shapes, [tuple(d for i, d in enumerate(x) if i != axis)]


(register_op("argmax").describe("Index of the largest value along axis (as float32).")
 .set_num_inputs(1).set_attr("FInferShape", _argmax_shape)
 .set_attr("FGradient", no_gradient))
