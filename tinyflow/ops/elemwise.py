"""Elementwise ops: binary (numpy broadcasting), with a scalar, unary, and their gradients.

Bodies: ``tinyflow/lua_ops/ops/<name>.lua``.
"""
from __future__ import annotations

from ..nnvm.attrs import broadcast_shapes, inplace_first, no_gradient, same_shape
from ..nnvm.errors import ShapeError
from ..nnvm.op import register_op
from ..nnvm.symbol import create_op

__all__ = ["broadcast_like", "collapse_sum_like"]


def collapse_sum_like(grad, like):
    """``grad`` summed over the axes along which ``like`` was broadcast (shape of ``like``)."""
    return create_op("_collapse_sum_like", grad, like)


def broadcast_like(x, like, axis=None, mean=False):
    """``x`` broadcast to the shape of ``like`` (see op ``broadcast_like``)."""
    return create_op("broadcast_like", x, like, axis=axis, mean=mean)


def _binary_shape(attrs, in_shapes, out_shapes):
    a, b = in_shapes
    out = out_shapes[0]
    if a is not None and b is not None:
        out = broadcast_shapes(a, b)
        if out_shapes[0] is not None and out_shapes[0] != out:
            raise ShapeError(f"output must be {out}, got {out_shapes[0]}")
    elif out is not None:  # backward: an unknown input takes the output's shape (elementwise)
        a = out if a is None else a
        b = out if b is None else b
    return [a, b], [out]


def _binary(name, doc, gradient):
    (register_op(name).describe(doc).set_num_inputs(2)
     .set_attr("FInferShape", _binary_shape)
     .set_attr("FInplaceOption", [(0, 0), (1, 0)])
     .set_attr("FGradient", gradient))


_binary("elemwise_add", "a + b with numpy broadcasting.", lambda n, g: [
    collapse_sum_like(g[0], n.inputs[0]), collapse_sum_like(g[0], n.inputs[1])])
_binary("elemwise_sub", "a - b with numpy broadcasting.", lambda n, g: [
    collapse_sum_like(g[0], n.inputs[0]), collapse_sum_like(-g[0], n.inputs[1])])
_binary("elemwise_mul", "a * b with numpy broadcasting.", lambda n, g: [
    collapse_sum_like(g[0] * n.inputs[1], n.inputs[0]),
    collapse_sum_like(g[0] * n.inputs[0], n.inputs[1])])
_binary("elemwise_div", "a / b with numpy broadcasting.", lambda n, g: [
    collapse_sum_like(g[0] / n.inputs[1], n.inputs[0]),
    collapse_sum_like(-g[0] * n.outputs[0] / n.inputs[1], n.inputs[1])])
_binary("elemwise_pow", "a ** b with numpy broadcasting.", lambda n, g: [
    collapse_sum_like(g[0] * n.inputs[1] * n.inputs[0] ** (n.inputs[1] - 1), n.inputs[0]),
    collapse_sum_like(g[0] * n.outputs[0] * create_op("log", n.inputs[0]), n.inputs[1])])
_binary("equal", "1.0 where a == b, else 0.0 (broadcasting); no gradient.", no_gradient)


def _unary(name, doc, gradient=None):
    op = (register_op(name).describe(doc).set_num_inputs(1)
          .set_attr("FInferShape", same_shape)
          .set_attr("FInplaceOption", inplace_first))
    if gradient is not None:
        op.set_attr("FGradient", gradient)
    return op


_unary("__add_scalar__", "x + scalar.", lambda n, g: [g[0]])
_unary("__sub_scalar__", "x - scalar.", lambda n, g: [g[0]])
_unary("__rsub_scalar__", "scalar - x.", lambda n, g: [-g[0]])
_unary("__mul_scalar__", "x * scalar.", lambda n, g: [g[0] * n.attrs["scalar"]])
_unary("__div_scalar__", "x / scalar.", lambda n, g: [g[0] / n.attrs["scalar"]])
_unary("__rdiv_scalar__", "scalar / x.", lambda n, g: [-g[0] * n.outputs[0] / n.inputs[0]])
_unary("__pow_scalar__", "x ** scalar.", lambda n, g: [
    g[0] * n.attrs["scalar"] * n.inputs[0] ** (n.attrs["scalar"] - 1)])
_unary("__rpow_scalar__", "scalar ** x.", lambda n, g: [
    g[0] * n.outputs[0] * _log(n.attrs["scalar"])])
_unary("negative", "-x.", lambda n, g: [-g[0]])
_unary("exp", "e ** x.", lambda n, g: [g[0] * n.outputs[0]])
_unary("log", "Natural logarithm.", lambda n, g: [g[0] / n.inputs[0]])
_unary("sqrt", "Square root.", lambda n, g: [g[0] * 0.5 / n.outputs[0]])
_unary("tanh", "Hyperbolic tangent.", lambda n, g: [
    create_op("_tanh_backward", g[0], n.outputs[0])])
_unary("sigmoid", "1 / (1 + e ** -x).", lambda n, g: [
    create_op("_sigmoid_backward", g[0], n.outputs[0])])
_unary("abs", "|x|.", lambda n, g: [g[0] * create_op("sign", n.inputs[0])])
_unary("sign", "-1, 0 or 1; no gradient.", no_gradient)
_unary("relu", "max(x, 0).", lambda n, g: [
    create_op("_relu_backward", g[0], n.outputs[0])])
_unary("copy", "A copy of x (identity).", lambda n, g: [g[0]])
_unary("zeros_like", "Zeros of x's shape; no gradient.", no_gradient).set_attr("FIgnoreInputs", [0])
_unary("ones_like", "Ones of x's shape; no gradient.", no_gradient).set_attr("FIgnoreInputs", [0])


def _log(value: float) -> float:
    import math
    return math.log(value)


(register_op("_relu_backward").describe("g where y > 0, else 0 (y is relu's output).")
 .set_num_inputs(2).set_attr("FInferShape", same_shape)
 .set_attr("FInplaceOption", [(0, 0)]).set_attr("TIsBackward", True))

# One kernel each instead of three elementwise ops; their own gradients compose primitives.
(register_op("_tanh_backward").describe("g * (1 - y * y) (y is tanh's output).")
 .set_num_inputs(2).set_attr("FInferShape", same_shape)
 .set_attr("FInplaceOption", [(0, 0)]).set_attr("TIsBackward", True)
 .set_attr("FGradient", lambda n, g: [
     create_op("_tanh_backward", g[0], n.inputs[1]),
     g[0] * n.inputs[0] * n.inputs[1] * -2.0]))
(register_op("_sigmoid_backward").describe("g * y * (1 - y) (y is sigmoid's output).")
 .set_num_inputs(2).set_attr("FInferShape", same_shape)
 .set_attr("FInplaceOption", [(0, 0)]).set_attr("TIsBackward", True)
 .set_attr("FGradient", lambda n, g: [
     create_op("_sigmoid_backward", g[0], n.inputs[1]),
     g[0] * n.inputs[0] * (1.0 - n.inputs[1] * 2.0)]))

(register_op("elemwise_sum").describe("Sum of num_args inputs of one shape (gradient sums).")
 .set_num_inputs(lambda attrs: attrs["num_args"])
 .set_attr("FInferShape", same_shape)
 .set_attr("FInplaceOption", [(0, 0)])
 .set_attr("FGradient", lambda n, g: [g[0]] * len(n.inputs)))


def _collapse_shape(attrs, in_shapes, out_shapes):
    grad, like = in_shapes
    out = out_shapes[0] if like is None else like
    if grad is not None and out is not None:
        try:
            if broadcast_shapes(grad, out) != grad:
                raise ShapeError("")
        except ShapeError:
            raise ShapeError(f"{out} does not broadcast to {grad}") from None
    return [grad, out], [out]


(register_op("_collapse_sum_like")
 .describe("Sum input 0 over the axes where input 1 (shape-only) was broadcast.")
 .set_num_inputs(2).set_attr("FInferShape", _collapse_shape)
 .set_attr("FGradient", lambda n, g: [broadcast_like(g[0], n.inputs[0]), None])
 .set_attr("FIgnoreInputs", [1]).set_attr("TIsBackward", True))


def _insert_axes(shape, axis, rank):
    """Shape with size-1 axes put back at ``axis`` (positions in the result of rank ``rank``)."""
    axes = sorted(a % rank for a in ((axis,) if isinstance(axis, int) else axis))
    out = list(shape)
    for a in axes:
        out.insert(a, 1)
    return tuple(out)


def _broadcast_like_shape(attrs, in_shapes, out_shapes):
    x, like = in_shapes
    out = out_shapes[0] if like is None else like
    if x is not None and out is not None:
        axis = attrs.get("axis")
        full = _insert_axes(x, axis, len(out)) if axis is not None else x
        if len(full) > len(out) or broadcast_shapes(full, out) != tuple(out):
            raise ShapeError(f"{x} (axis {axis}) does not broadcast to {out}")
    return [x, out], [out]


(register_op("broadcast_like")
 .describe("Input 0 broadcast to the shape of input 1 (shape-only).  axis: the axes of the "
           "result that input 0 lacks (size-1 axes are put back there first).  mean=True also "
           "divides by the broadcast factor (the gradient of a mean).")
 .set_num_inputs(2).set_attr("FInferShape", _broadcast_like_shape)
 .set_attr("FIgnoreInputs", [1])
 .set_attr("FGradient", lambda n, g: [
     _unbroadcast(g[0], n.inputs[0], n.attrs.get("axis"), n.attrs.get("mean", False)), None]))


def _unbroadcast(g, x, axis, mean):
    """Gradient of broadcast_like: sum (or mean) back to x's shape."""
    if axis is None:
        summed = collapse_sum_like(g, x)
    else:
        summed = create_op("reduce_sum", g, axis=axis, keepdims=False)
    return summed if not mean else create_op("_scale_like", summed, g, x)


(register_op("_scale_like").describe("x * numel(input 2) / numel(input 1) (shape-only inputs).")
 .set_num_inputs(3)
 .set_attr("FInferShape", lambda attrs, ins, outs: (
     [ins[0] or outs[0]] + ins[1:], [ins[0] or outs[0]]))
 .set_attr("FInplaceOption", [(0, 0)]).set_attr("FIgnoreInputs", [1, 2])
 .set_attr("FGradient", lambda n, g: [create_op("_scale_like", g[0], n.inputs[1],
                                                n.inputs[2]), None, None]))
