"""Elementwise ops: binary (numpy broadcasting), with a scalar, unary, and their gradients; the
dtype rules (FInferType) every math op uses.

Bodies: ``tinyflow/lua_ops/elemwise/<name>.lua``.
"""
from __future__ import annotations

import math

import numpy as np

from ..nnvm.attrs import broadcast_shapes, inplace_first, no_gradient, same_shape
from ..nnvm.errors import DTypeError, ShapeError
from ..nnvm.op import Op, register_op
from ..nnvm.symbol import create_op

__all__ = ["NUMERIC", "binary_shape", "broadcast_like", "collapse_sum_like", "dtype_kind",
           "dtype_rule", "first_type", "truediv_type"]

NUMERIC = ("float", "int")
# TensorFlow 1.15's _TRUEDIV_TABLE: the float type integers are cast to before dividing
_TRUEDIV = {"int8": "float32", "uint8": "float32", "int16": "float32", "int32": "float64",
            "int64": "float64"}


def dtype_kind(dtype: str) -> str:
    """``"float"``, ``"int"`` (signed or not), ``"bool"`` or ``"string"``."""
    if dtype in ("bool", "string"):
        return dtype
    return "float" if dtype.startswith("float") else "int"


def truediv_type(dtype: str) -> str:
    """The dtype of ``x / y`` for x and y of ``dtype`` (TF's truediv: int32 -> float64)."""
    return _TRUEDIV.get(dtype, dtype)


def dtype_rule(accept=NUMERIC, result=None, mixed=False):
    """FInferType of an op whose inputs share one dtype of a kind in ``accept``.

    ``result``: the outputs' dtype, a name or ``f(input dtype)`` (None: the inputs').
    ``mixed``: an integer and a float input may meet (comparisons compare their values: an
    extension TensorFlow lacks, kept for the seed's ``equal(argmax(y, 1), float_label)``).
    Raises :class:`DTypeError` naming the dtypes, as TF raises a TypeError for float32 + int32.
    """
    def rule(attrs, in_types, out_types):
        if None in in_types and result is None and out_types and out_types[0] is not None:
            # backward: an input still unknown (a variable's initial value) has the output's
            in_types = [t or out_types[0] for t in in_types]
        if None in in_types:
            return in_types, out_types
        for dtype in in_types:
            if dtype_kind(dtype) not in accept:
                raise DTypeError(f"takes {' or '.join(accept)} tensors, got {dtype}")
        kinds = {dtype_kind(t) for t in in_types}
        if len(set(in_types)) > 1 and not (mixed and kinds == {"int", "float"}):
            raise DTypeError(f"inputs must have one dtype, got {' and '.join(in_types)}: "
                             f"tf.cast one of them")
        out = result(in_types[0]) if callable(result) else (result or in_types[0])
        return in_types, [out] * len(out_types)
    return rule


def first_type(attrs, in_types, out_types):
    """FInferType of ops whose other inputs are read for their shape only: output 0 has
    input 0's dtype."""
    dtype = in_types[0] or out_types[0]
    return [dtype] + list(in_types[1:]), [dtype] * len(out_types)


def _scalar_type(divides=False):
    """FInferType of ``x <op> scalar``: x's dtype (truediv's for a division of integers); an
    integer tensor refuses a fractional Python number, as TF refuses to convert it."""
    def rule(attrs, in_types, out_types):
        dtype = in_types[0] or (None if divides else out_types[0])  # or backward
        if dtype is None:
            return in_types, out_types
        kind, scalar = dtype_kind(dtype), attrs.get("scalar", 0)
        if kind not in NUMERIC:
            raise DTypeError(f"takes float or int tensors, got {dtype}")
        if kind == "int" and not float(scalar).is_integer():
            raise DTypeError(f"a {dtype} tensor and the Python number {scalar} do not mix "
                             f"(TensorFlow cannot convert it to {dtype}): tf.cast the tensor")
        return [dtype], [truediv_type(dtype) if divides else dtype]
    return rule


def collapse_sum_like(grad, like):
    """``grad`` summed over the axes along which ``like`` was broadcast (shape of ``like``)."""
    return create_op("_collapse_sum_like", grad, like)


def broadcast_like(x, like, axis=None, mean=False):
    """``x`` broadcast to the shape of ``like`` (see op ``broadcast_like``)."""
    return create_op("broadcast_like", x, like, axis=axis, mean=mean)


def binary_shape(attrs, in_shapes, out_shapes):
    a, b = in_shapes
    out = out_shapes[0]
    if a is not None and b is not None:
        out = broadcast_shapes(a, b)
        if out_shapes[0] is not None and out_shapes[0] != out:
            raise ShapeError(f"output must be {out}, got {out_shapes[0]}")
    # no backward rule: an unknown input may be any shape that broadcasts to the output
    # ((1, 1) or (4, 1) against a (4, 1) output), so the output does not give it
    return [a, b], [out]


def _binary(name, doc, gradient, dtypes=None, fuse=None, layout=None):
    op = (register_op(name).describe(doc).set_num_inputs(2)
          .set_attr("FInferShape", binary_shape)
          .set_attr("FInferType", dtypes or dtype_rule())
          .set_attr("FInplaceOption", [(0, 0), (1, 0)])
          .set_attr("FGradient", gradient)
          .set_attr("FFuseExpr", fuse))
    if layout is not None:
        op.set_attr("TChannelsLast", layout)
    return op


# FFuseExpr (tinyflow/nnvm/attrs.py): (torch expression, CUDA C++ expression) per op;
# layout "same" (TChannelsLast): elementwise, so any layout, one for all 4-d operands
(_binary("elemwise_add", "a + b with numpy broadcasting.", lambda n, g: [
    collapse_sum_like(g[0], n.inputs[0]), collapse_sum_like(g[0], n.inputs[1])],
    fuse=("{0} + {1}", "{0} + {1}"), layout="same").set_attr("TFoldable", True)
 # a (C,) vector b broadcasts along the last axis: NHWC's channels, linear's features
 .set_attr("FBiasLayout", lambda attrs: "NHWC"))
_binary("elemwise_sub", "a - b with numpy broadcasting.", lambda n, g: [
    collapse_sum_like(g[0], n.inputs[0]), collapse_sum_like(-g[0], n.inputs[1])],
    fuse=("{0} - {1}", "{0} - {1}"), layout="same").set_attr("TFoldable", True)
_binary("elemwise_mul", "a * b with numpy broadcasting.", lambda n, g: [
    collapse_sum_like(g[0] * n.inputs[1], n.inputs[0]),
    collapse_sum_like(g[0] * n.inputs[0], n.inputs[1])],
    fuse=("{0} * {1}", "{0} * {1}"), layout="same").set_attr("TFoldable", True)
_binary("elemwise_div", "a / b with numpy broadcasting (TF's truediv: integers are divided as "
        "floats, int8/int16/uint8 as float32, int32/int64 as float64).", lambda n, g: [
    collapse_sum_like(g[0] / n.inputs[1], n.inputs[0]),
    collapse_sum_like(-g[0] * n.outputs[0] / n.inputs[1], n.inputs[1])],
    dtype_rule(result=truediv_type), fuse=("{0} / {1}", "{0} / {1}")).set_attr("TFoldable", True)
_binary("elemwise_pow", "a ** b with numpy broadcasting.", lambda n, g: [
    collapse_sum_like(g[0] * n.inputs[1] * n.inputs[0] ** (n.inputs[1] - 1), n.inputs[0]),
    collapse_sum_like(g[0] * n.outputs[0] * create_op("log", n.inputs[0]), n.inputs[1])],
    fuse=("torch.pow({0}, {1})", "pow({0}, {1})"))


def _unary(name, doc, gradient=None, dtypes=None, fuse=None, layout=None):
    op = (register_op(name).describe(doc).set_num_inputs(1)
          .set_attr("FInferShape", same_shape)
          .set_attr("FInferType", dtypes or dtype_rule())
          .set_attr("FInplaceOption", inplace_first))
    for key, value in (("FGradient", gradient), ("FFuseExpr", fuse), ("TChannelsLast", layout)):
        if value is not None:
            op.set_attr(key, value)
    return op


def _call(python, cuda=None):
    """FFuseExpr of a unary function: ``torch.<python>(x)`` and ``<cuda>(x)`` in C++."""
    return f"torch.{python}({{0}})", f"{cuda or python}({{0}})"


# x <op> a Python number: the number takes x's dtype (int_tensor * 2 stays an integer tensor)
_unary("__add_scalar__", "x + scalar.", lambda n, g: [g[0]], _scalar_type(),
       ("{0} + {scalar}", "{0} + T({scalar})"), "same").set_attr("TFoldable", True)
_unary("__sub_scalar__", "x - scalar.", lambda n, g: [g[0]], _scalar_type(),
       ("{0} - {scalar}", "{0} - T({scalar})"), "same").set_attr("TFoldable", True)
_unary("__rsub_scalar__", "scalar - x.", lambda n, g: [-g[0]], _scalar_type(),
       ("{scalar} - {0}", "T({scalar}) - {0}")).set_attr("TFoldable", True)
_unary("__mul_scalar__", "x * scalar.", lambda n, g: [g[0] * n.attrs["scalar"]],
       _scalar_type(), ("{0} * {scalar}", "{0} * T({scalar})"), "same").set_attr("TFoldable", True)
_unary("__div_scalar__", "x / scalar (TF's truediv for integer x).",
       lambda n, g: [g[0] / n.attrs["scalar"]], _scalar_type(divides=True),
       ("{0} / {scalar}", "{0} / T({scalar})")).set_attr("TFoldable", True)
_unary("__rdiv_scalar__", "scalar / x (TF's truediv for integer x).",
       lambda n, g: [-g[0] * n.outputs[0] / n.inputs[0]], _scalar_type(divides=True),
       ("{scalar} / {0}", "T({scalar}) / {0}"))
_unary("__pow_scalar__", "x ** scalar.", lambda n, g: [
    g[0] * n.attrs["scalar"] * n.inputs[0] ** (n.attrs["scalar"] - 1)], _scalar_type(),
       ("torch.pow({0}, {scalar})", "pow({0}, T({scalar}))"))
_unary("__rpow_scalar__", "scalar ** x.", lambda n, g: [
    g[0] * n.outputs[0] * math.log(n.attrs["scalar"])], _scalar_type(),
       ("torch.pow({scalar}, {0})", "pow(T({scalar}), {0})"))
# FFoldValue: shape arguments computed from tf.shape are folded at bind (passes/fold_shapes.py)
for _name, _fold in (("elemwise_add", np.add), ("elemwise_sub", np.subtract),
                     ("elemwise_mul", np.multiply), ("elemwise_div", np.true_divide)):
    register_op(_name).set_attr("FFoldValue", lambda attrs, v, shapes, f=_fold: [f(*v)])
for _name, _fold in (("__add_scalar__", lambda x, c: x + c), ("__sub_scalar__", lambda x, c: x - c),
                     ("__rsub_scalar__", lambda x, c: c - x), ("__mul_scalar__", lambda x, c: x * c),
                     ("__div_scalar__", lambda x, c: x / c), ("__rdiv_scalar__", lambda x, c: c / x)):
    register_op(_name).set_attr("FFoldValue", lambda attrs, v, shapes, f=_fold: [
        f(v[0], attrs["scalar"])])
register_op("negative").set_attr("FFoldValue", lambda attrs, v, shapes: [np.negative(v[0])])
FLOAT = dtype_rule(("float",))  # TF defines these for floating types only
_unary("negative", "-x.", lambda n, g: [-g[0]], fuse=("-{0}", "-{0}"),
       layout="same").set_attr("TFoldable", True)
_unary("exp", "e ** x.", lambda n, g: [g[0] * n.outputs[0]], FLOAT, _call("exp"))
_unary("log", "Natural logarithm.", lambda n, g: [g[0] / n.inputs[0]], FLOAT, _call("log"))
_unary("sqrt", "Square root.", lambda n, g: [g[0] * 0.5 / n.outputs[0]], FLOAT, _call("sqrt"))
# TActivation: non-decreasing (they commute with max pooling), a post-op of _fused_conv2d and
# _fused_linear, and their gradient is the named op of (g, y)
_unary("tanh", "Hyperbolic tangent.", lambda n, g: [
    create_op("_tanh_backward", g[0], n.outputs[0])], FLOAT, _call("tanh"),
       "same").set_attr("TActivation", "_tanh_backward")
_unary("sigmoid", "1 / (1 + e ** -x).", lambda n, g: [
    create_op("_sigmoid_backward", g[0], n.outputs[0])], FLOAT,
       ("torch.sigmoid({0})", "T(1) / (T(1) + exp(-{0}))"),
       "same").set_attr("TActivation", "_sigmoid_backward")
_unary("abs", "|x|.", lambda n, g: [g[0] * create_op("sign", n.inputs[0])],
       fuse=("torch.abs({0})", "{0} < T(0) ? -{0} : {0}"))
# sign is flat where it is defined: its gradient is zeros (TF's SignGrad), not None, so
# tf.gradients(tf.sign(x), x) is a tensor as in TensorFlow
_unary("sign", "-1, 0 or 1; gradient zero.", lambda n, g: [create_op("zeros_like", n.inputs[0])],
       fuse=("torch.sign({0})", "T(({0} > T(0)) - ({0} < T(0)))"))
_unary("relu", "max(x, 0).", lambda n, g: [
    create_op("_relu_backward", g[0], n.outputs[0])],
       fuse=("torch.relu({0})", "{0} > T(0) ? {0} : T(0)"),
       layout="same").set_attr("TActivation", "_relu_backward")
ANY = dtype_rule(("float", "int", "bool"))
_unary("copy", "A copy of x (identity).", lambda n, g: [g[0]], ANY,
       ("{0}", "{0}"), "same").set_attr("TFoldable", True)
# TGradientRole: the Gradient pass's zeros for an x not reached, ones for the head gradient
(_unary("zeros_like", "Zeros of x's shape and dtype; no gradient.", no_gradient, ANY)
 .set_attr("FIgnoreInputs", [0]).set_attr("TFoldable", True)
 .set_attr("TGradientRole", "zero"))
(_unary("ones_like", "Ones of x's shape and dtype; no gradient.", no_gradient, ANY)
 .set_attr("FIgnoreInputs", [0]).set_attr("TFoldable", True)
 .set_attr("TGradientRole", "one"))


(register_op("_relu_backward").describe("g where y > 0, else 0 (y is relu's output).")
 .set_num_inputs(2).set_attr("FInferShape", same_shape).set_attr("TChannelsLast", "same")
 .set_attr("FInplaceOption", [(0, 0)]).set_attr("TIsBackward", True)
 .set_attr("FFuseExpr", ("torch.where({1} > 0, {0}, 0.0)", "{1} > T(0) ? {0} : T(0)"))
 # linear in g (the same mask); flat in y where it is defined (TF's ReluGradGrad: zeros)
 .set_attr("FGradient", lambda n, g: [create_op("_relu_backward", g[0], n.inputs[1]),
                                      create_op("zeros_like", n.inputs[1])]))

# One kernel each instead of three elementwise ops; their own gradients compose primitives.
(register_op("_tanh_backward").describe("g * (1 - y * y) (y is tanh's output).")
 .set_num_inputs(2).set_attr("FInferShape", same_shape).set_attr("TChannelsLast", "same")
 .set_attr("FInplaceOption", [(0, 0)]).set_attr("TIsBackward", True)
 .set_attr("FFuseExpr", ("{0} * (1 - {1} * {1})", "{0} * (T(1) - {1} * {1})"))
 .set_attr("FGradient", lambda n, g: [
     create_op("_tanh_backward", g[0], n.inputs[1]),
     g[0] * n.inputs[0] * n.inputs[1] * -2.0]))
(register_op("_sigmoid_backward").describe("g * y * (1 - y) (y is sigmoid's output).")
 .set_num_inputs(2).set_attr("FInferShape", same_shape).set_attr("TChannelsLast", "same")
 .set_attr("FInplaceOption", [(0, 0)]).set_attr("TIsBackward", True)
 .set_attr("FFuseExpr", ("{0} * (1 - {1}) * {1}", "{0} * (T(1) - {1}) * {1}"))
 .set_attr("FGradient", lambda n, g: [
     create_op("_sigmoid_backward", g[0], n.inputs[1]),
     g[0] * n.inputs[0] * (1.0 - n.inputs[1] * 2.0)]))

(register_op("elemwise_sum").describe("Sum of num_args inputs of one shape (gradient sums).")
 .set_num_inputs(lambda attrs: attrs["num_args"]).set_attr("TChannelsLast", "same")
 .set_attr("TGradientRole", "sum")
 .set_attr("FInferShape", same_shape).set_attr("FInferType", dtype_rule())
 .set_attr("FInplaceOption", [(0, 0)])
 .set_attr("FFuseExpr", lambda attrs, shapes: (
     " + ".join(f"{{{i}}}" for i in range(attrs["num_args"])),) * 2)
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


def _fuse_collapse(attrs, shapes):
    """FFuseExpr of ``_collapse_sum_like``: a sum over the broadcast axes (leading ones and
    those where the target has size 1), on the CPU only; where nothing was broadcast (most
    gradients of binary ops) it is a copy, on CUDA too."""
    grad, like = shapes
    if tuple(grad) == tuple(like):
        return "{0}", "{0}"
    lead = len(grad) - len(like)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(like)
                                      if d == 1 and grad[lead + i] != 1)
    summed = f"torch.sum({{0}}, dim={axes}, keepdim=True)" if axes else "{0}"
    return f"{summed}.reshape({tuple(like)})", None


(register_op("_collapse_sum_like")
 .describe("Sum input 0 over the axes where input 1 (shape-only) was broadcast.")
 .set_num_inputs(2).set_attr("FInferShape", _collapse_shape)
 .set_attr("FInferType", first_type)
 .set_attr("FGradient", lambda n, g: [broadcast_like(g[0], n.inputs[0]), None])
 # nothing to sum (the shapes agree, an add's gradient): MaterializeShapes skips the node
 # (its readers read g); where it cannot (fetched), the plan may alias y to g, no copy
 .set_attr("TSameShapeIdentity", True).set_attr("FInplaceOption", [(0, 0)])
 .set_attr("TFoldable", True)
 .set_attr("FIgnoreInputs", [1]).set_attr("TIsBackward", True)
 .set_attr("TOpPattern", "reduce").set_attr("FFuseExpr", _fuse_collapse))


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


def _fuse_broadcast(attrs, shapes):
    """FFuseExpr of ``broadcast_like``: an expand (a view) the kernel reads through, divided by
    the count for a mean.  With ``axis`` the size-1 axes are put back first: on the CPU only
    (jiterator broadcasts its inputs with numpy's rules, which would align them wrong)."""
    x, like = (tuple(shape) for shape in shapes)
    axis = attrs.get("axis")
    # a mean's gradient divides by the count, as the body does (g * (1 / N) can be one float
    # step off)
    count = math.prod(like) / max(math.prod(x), 1) if attrs.get("mean") else None
    python = "{0}" if axis is None else f"{{0}}.reshape({_insert_axes(x, axis, len(like))})"
    python = f"{python}.expand({like})" + ("" if count is None else f" / {count!r}")
    cuda = None if axis is not None else "{0}" if count is None else f"{{0}} / T({count!r})"
    return python, cuda


(register_op("broadcast_like")
 .describe("Input 0 broadcast to the shape of input 1 (shape-only).  axis: the axes of the "
           "result that input 0 lacks (size-1 axes are put back there first).  mean=True also "
           "divides by the broadcast factor (the gradient of a mean).")
 .set_num_inputs(2).set_attr("FInferShape", _broadcast_like_shape)
 .set_attr("FInferType", first_type)
 .set_attr("FIgnoreInputs", [1]).set_attr("TSameShapeIdentity", True)
 .set_attr("TFoldable", True)
 .set_attr("FFuseExpr", _fuse_broadcast)
 .set_attr("FGradient", lambda n, g: [
     _unbroadcast(g[0], n.inputs[0], n.attrs.get("axis"), n.attrs.get("mean", False)), None]))


def _unbroadcast(g, x, axis, mean):
    """Gradient of broadcast_like: sum (or mean) back to x's shape."""
    if axis is None:
        summed = collapse_sum_like(g, x)
    else:
        summed = create_op("reduce_sum", g, axis=axis, keepdims=False)
    return summed if not mean else create_op("_scale_like", summed, g, x)


(register_op("_scale_like").describe("x / (numel(input 1) / numel(input 2)) (shape-only inputs).")
 .set_num_inputs(3).set_attr("FInferType", first_type)
 .set_attr("FInferShape", lambda attrs, ins, outs: (
     [ins[0] or outs[0]] + ins[1:], [ins[0] or outs[0]]))
 .set_attr("FInplaceOption", [(0, 0)]).set_attr("FIgnoreInputs", [1, 2])
 .set_attr("FGradient", lambda n, g: [create_op("_scale_like", g[0], n.inputs[1],
                                                n.inputs[2]), None, None]))


# TTFType: TensorFlow's op type (op.type) where it is not our name in CamelCase
for _name, _type in (("elemwise_add", "AddV2"), ("elemwise_sub", "Sub"), ("elemwise_mul", "Mul"),
        ("elemwise_div", "RealDiv"), ("elemwise_pow", "Pow"), ("__add_scalar__", "AddV2"),
        ("__sub_scalar__", "Sub"), ("__rsub_scalar__", "Sub"), ("__mul_scalar__", "Mul"),
        ("__div_scalar__", "RealDiv"), ("__rdiv_scalar__", "RealDiv"), ("__pow_scalar__", "Pow"),
        ("__rpow_scalar__", "Pow"), ("negative", "Neg"), ("copy", "Identity"), ("elemwise_sum",
        "AddN"), ("_relu_backward", "ReluGrad"), ("_tanh_backward", "TanhGrad"),
        ("_sigmoid_backward", "SigmoidGrad"), ("broadcast_like", "BroadcastTo"),
        ("_collapse_sum_like", "Sum")):
    Op.get(_name).set_attr("TTFType", _type)
