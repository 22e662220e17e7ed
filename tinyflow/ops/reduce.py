"""Reductions over axes (sum, mean, max, min, prod, any, all) and argmax / argmin.

Bodies in ``lua_ops/reduce/<name>.lua``.  Dtypes as in TensorFlow: a reduction keeps its input's
dtype (an integer mean truncates, as TF's), argmax / argmin give ``output_type`` (int64).  One
extension kept for the seed's programs: ``reduce_sum`` / ``reduce_mean`` of a bool tensor count
its True values as 1.0 and give float32 (``reduce_mean(equal(...))`` is the accuracy; TF would
raise).
"""
from __future__ import annotations

import numpy as np

from ..nnvm.attrs import no_gradient
from ..nnvm.errors import ShapeError
from ..nnvm.op import Op, register_op
from ..nnvm.symbol import create_op
from .elemwise import dtype_rule

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


def _like_input(node, value):
    """``value`` (shaped as node's output) broadcast back to the shape of node's input."""
    # Reduced axes were dropped unless keepdims (or all axes went): put them back.
    axis = None if node.attrs.get("keepdims", False) else node.attrs.get("axis")
    return create_op("broadcast_like", value, node.inputs[0], axis=axis)


def _broadcast_gradient(mean):
    """FGradient of reduce_sum (reduce_mean with ``mean``): the output's gradient broadcast
    back to the input's shape (and divided by the count for a mean)."""
    def gradient(node, grads):
        axis = None if node.attrs.get("keepdims", False) else node.attrs.get("axis")
        return [create_op("broadcast_like", grads[0], node.inputs[0], axis=axis, mean=mean)]
    return gradient


def _extremum_grad(node, grads):
    # TF's rule: the gradient is shared equally by the elements equal to the max (or min).
    x = node.inputs[0]
    hit = create_op("where", create_op("equal", x, _like_input(node, node.outputs[0])),
                    create_op("ones_like", x), create_op("zeros_like", x))
    count = create_op("reduce_sum", hit, axis=node.attrs.get("axis"), keepdims=True)
    return [hit / count * _like_input(node, grads[0])]


def _prod_grad(node, grads):
    return [create_op("_reduce_prod_backward", grads[0], node.inputs[0],
                      axis=node.attrs.get("axis"))]


def _fuse_reduce(call):
    """FFuseExpr of a reduction (``TOpPattern`` "reduce"): ``call`` over the node's axes on the
    CPU, where inductor compiles it with the elementwise ops around it; none on CUDA
    (jiterator cannot reduce).  Reducing no axis is a copy, on both."""
    def expr(attrs, shapes):
        axis = normalize_axis(attrs.get("axis"), len(shapes[0]))
        if not axis:  # torch.sum(x, dim=()) would sum everything
            return "{0}", "{0}"
        return f"{call}({{0}}, dim={axis}, keepdim={bool(attrs.get('keepdims', False))})", None
    return expr


_SUMS = dtype_rule(("float", "int", "bool"), result=lambda t: "float32" if t == "bool" else t)
for _name, _doc, _grad, _dtypes in (
        ("reduce_sum", ("Sum over axis (None: all); keepdims keeps reduced axes as size 1.  A "
                        "bool input sums as 0/1 to float32 (an extension: TF raises)."),
         _broadcast_gradient(False), _SUMS),
        ("reduce_mean", ("Mean over axis (None: all); keepdims keeps reduced axes as size 1.  "
                         "An integer mean truncates (TF's); a bool input averages as 0/1 to "
                         "float32 (an extension, for the accuracy idiom: TF raises)."),
         _broadcast_gradient(True), _SUMS),
        ("reduce_max", "Max over axis (None: all); the gradient is shared by the maxima.",
         _extremum_grad, dtype_rule()),
        ("reduce_min", "Min over axis (None: all); the gradient is shared by the minima.",
         _extremum_grad, dtype_rule()),
        ("reduce_prod", "Product over axis (None: all); the gradient holds at zeros too.",
         _prod_grad, dtype_rule()),
        ("reduce_any", "Logical or over axis (None: all) of a bool tensor.", no_gradient,
         dtype_rule(("bool",))),
        ("reduce_all", "Logical and over axis (None: all) of a bool tensor.", no_gradient,
         dtype_rule(("bool",)))):
    (register_op(_name).describe(_doc).set_num_inputs(1)
     .set_attr("FInferShape", _reduce_shape).set_attr("FInferType", _dtypes)
     .set_attr("FGradient", _grad))
# fused with their elementwise inputs and readers (FuseElemwise, CPU): see docs/fusion.md
for _name, _call in (("reduce_sum", "torch.sum"), ("reduce_mean", "torch.mean"),
                     ("reduce_max", "torch.amax"), ("reduce_min", "torch.amin")):
    Op.get(_name).set_attr("TOpPattern", "reduce").set_attr("FFuseExpr", _fuse_reduce(_call))
# FFoldValue: tf.reduce_prod(tf.shape(x)[1:]) folded at bind (passes/fold_shapes.py)
for _name, _fold in (("reduce_sum", np.sum), ("reduce_prod", np.prod)):
    Op.get(_name).set_attr("FFoldValue", lambda attrs, v, shapes, f=_fold: [f(
        v[0], axis=None if attrs.get("axis") is None else normalize_axis(
            attrs["axis"], v[0].ndim), keepdims=bool(attrs.get("keepdims", False)))])
# conv2d's bias gradient: torch's sum takes any strides and its body reduces named dimensions
Op.get("reduce_sum").set_attr("TChannelsLast", "any")



def _prod_backward_grad(node, grads):
    """out = g * e, e the product of the slice's other elements: d g = sum(h * e) over the
    reduced axes (e = the op of ones), to g's shape; d x_k = g * sum over i != k of h_i times
    the product of the slice without x_i and x_k = out_k * (sum(h / x) - h_k / x_k), which
    divides by x as TF's (its cumprod's gradient does: not defined where x has a zero)."""
    (g, x), h, axis = node.inputs, grads[0], node.attrs.get("axis")
    others = create_op("_reduce_prod_backward", create_op("ones_like", g), x, axis=axis)
    grad_g = create_op("reshape_like", create_op("reduce_sum", h * others, axis=axis), g)
    share = h / x
    return [grad_g, node.outputs[0] * (
        create_op("reduce_sum", share, axis=axis, keepdims=True) - share)]


(register_op("_reduce_prod_backward")
 .describe("Gradient of reduce_prod (inputs g, x): g times the product of the other elements "
           "of x's reduced slice (exclusive cumulative products, so zeros are exact).")
 .set_num_inputs(2).set_attr("FInferType", dtype_rule(("float",)))
 .set_attr("FInferShape", lambda attrs, ins, outs: (ins, [ins[1]]))
 .set_attr("TIsBackward", True).set_attr("FGradient", _prod_backward_grad))


def _arg_shape(attrs, in_shapes, out_shapes):
    x = in_shapes[0]
    if x is None:
        return in_shapes, out_shapes
    (axis,) = normalize_axis(attrs.get("axis", 0), len(x))
    return in_shapes, [tuple(d for i, d in enumerate(x) if i != axis)]


def _arg_type(attrs, in_types, out_types):
    dtype_rule()(attrs, in_types, out_types)  # checks the input
    return in_types, [attrs.get("output_type", "int64")]


for _name, _what in (("argmax", "largest"), ("argmin", "smallest")):
    (register_op(_name)
     .describe(f"Index of the {_what} value along axis (the first one on ties), of dtype "
               f"output_type (int64 or int32, as TF).")
     .set_num_inputs(1).set_attr("FInferShape", _arg_shape).set_attr("FInferType", _arg_type)
     .set_attr("FGradient", no_gradient))


# TTFType: TensorFlow's op type (op.type) where it is not our name in CamelCase
for _name, _type in (("reduce_sum", "Sum"), ("reduce_mean", "Mean"), ("reduce_max", "Max"),
        ("reduce_min", "Min"), ("reduce_prod", "Prod"), ("reduce_any", "Any"), ("reduce_all",
        "All"), ("argmax", "ArgMax"), ("argmin", "ArgMin")):
    Op.get(_name).set_attr("TTFType", _type)
