"""TensorFlow's math ops beyond elemwise.py: comparisons and logic (bool results), maximum,
minimum, floordiv, mod, rsqrt, log1p, floor, ceil, round, cast, where, confusion_matrix, and the
constant a Python number becomes beside a tensor.  Bodies in ``lua_ops/math/<name>.lua``.

Dtypes follow TensorFlow 1.15: inputs of a binary op share one dtype (``DTypeError`` naming
both otherwise), comparisons give bool, logic takes bool.  One extension is kept for the seed's
programs: a comparison between an integer and a float tensor compares their values
(``equal(argmax(logits, 1), float_labels)``; TF raises).
"""
from __future__ import annotations

import math

import numpy as np

from ..nnvm.attrs import no_gradient, same_shape
from ..nnvm.dtypes import as_dtype
from ..nnvm.errors import DTypeError, ShapeError
from ..nnvm.op import Op, register_op
from ..nnvm.symbol import create_op
from .elemwise import NUMERIC, binary_shape, collapse_sum_like, dtype_kind, dtype_rule

__all__ = []

ANY = ("float", "int", "bool")
_FLOAT = dtype_rule(("float",))


def _zeros(g):
    return create_op("zeros_like", g)


def _select(mask, g):
    """(g where mask, else 0; 0 where mask, else g): a two-way split of a gradient."""
    return create_op("where", mask, g, _zeros(g)), create_op("where", mask, _zeros(g), g)


def _binary(name, doc, dtypes, gradient=no_gradient, fuse=None):
    # No FInplaceOption for ops whose output dtype differs (PlanMemory also checks dtypes).
    op = (register_op(name).describe(doc).set_num_inputs(2)
          .set_attr("FInferShape", binary_shape).set_attr("FInferType", dtypes)
          .set_attr("FGradient", gradient))
    if fuse is not None:  # FFuseExpr: (torch expression, CUDA C++ expression)
        op.set_attr("FFuseExpr", fuse)


# -- comparisons and logic: bool results, no gradient ------------------------------------------
_MIXED = "; an integer and a float tensor compare by value (an extension: TF raises)"
for _name, _sign, _kinds in (("equal", "==", ANY), ("not_equal", "!=", ANY),
                             ("less", "<", NUMERIC), ("less_equal", "<=", NUMERIC),
                             ("greater", ">", NUMERIC), ("greater_equal", ">=", NUMERIC)):
    _binary(_name, f"a {_sign} b as bool, numpy broadcasting{_MIXED}.",
            dtype_rule(_kinds, result="bool", mixed=True))
for _name in ("logical_and", "logical_or"):
    _binary(_name, f"{_name.split('_')[1]} of bool tensors, numpy broadcasting.",
            dtype_rule(("bool",)))
(register_op("logical_not").describe("not x, of a bool tensor.").set_num_inputs(1)
 .set_attr("FInferShape", same_shape).set_attr("FInferType", dtype_rule(("bool",)))
 .set_attr("FInplaceOption", [(0, 0)]).set_attr("FGradient", no_gradient))


# -- binary arithmetic ----------------------------------------------------------------------------
def _extremum_grad(compare):
    # TF's rule: ties send the gradient to x
    def gradient(node, grads):
        x, y = node.inputs
        to_x, to_y = _select(create_op(compare, x, y), grads[0])
        return [collapse_sum_like(to_x, x), collapse_sum_like(to_y, y)]
    return gradient


def _mod_grad(node, grads):
    # x mod y = x - floor(x / y) * y
    x, y = node.inputs
    return [collapse_sum_like(grads[0], x),
            collapse_sum_like(-grads[0] * create_op("floordiv", x, y), y)]


_binary("maximum", "max(a, b), numpy broadcasting; ties give the gradient to a.", dtype_rule(),
        _extremum_grad("greater_equal"), ("torch.maximum({0}, {1})", "{0} < {1} ? {1} : {0}"))
_binary("minimum", "min(a, b), numpy broadcasting; ties give the gradient to a.", dtype_rule(),
        _extremum_grad("less_equal"), ("torch.minimum({0}, {1})", "{1} < {0} ? {1} : {0}"))
_binary("floordiv", "floor(a / b), numpy broadcasting (TF's floordiv: Python's //); no "
        "gradient.", dtype_rule())
_binary("mod", "a - floor(a / b) * b, numpy broadcasting (TF's floormod: Python's %, the sign "
        "of b).", dtype_rule(), _mod_grad)
def _atan2_grad(node, grads):
    # d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)
    y, x = node.inputs
    scaled = grads[0] / (y * y + x * x)
    return [collapse_sum_like(x * scaled, y), collapse_sum_like(-y * scaled, x)]


_binary("atan2", "The angle of the point (b, a) (a = y, b = x), in [-pi, pi], numpy broadcasting.",
        _FLOAT, _atan2_grad, ("torch.atan2({0}, {1})", "atan2({0}, {1})"))


def _next_after_grad(node, grads):
    # TF's rule: d nextafter(x1, x2) = dx1 (a step of one float), nothing to x2
    x1, x2 = node.inputs
    return [collapse_sum_like(grads[0], x1), collapse_sum_like(_zeros(grads[0]), x2)]


_binary("next_after", "The next float after a towards b (TF's tf.math.nextafter), numpy "
        "broadcasting.", _FLOAT, _next_after_grad)
register_op("next_after").set_attr("TTFType", "NextAfter")
# FFoldValue: shape arguments computed from tf.shape are folded at bind (passes/fold_shapes.py)
for _name, _fold in (("maximum", np.maximum), ("minimum", np.minimum),
                     ("floordiv", np.floor_divide), ("mod", np.mod)):
    register_op(_name).set_attr("FFoldValue", lambda attrs, v, shapes, f=_fold: [f(*v)])
register_op("cast").set_attr("FFoldValue", lambda attrs, v, shapes: [
    v[0].astype(attrs["dtype"])])


# -- unary on floats ------------------------------------------------------------------------------
def _unary(name, doc, gradient, dtypes=_FLOAT, cuda=""):
    # FFuseExpr: torch.<name>(x), and <cuda or name>(x) in C++ (cuda None: not fused on CUDA)
    (register_op(name).describe(doc).set_num_inputs(1)
     .set_attr("FInferShape", same_shape).set_attr("FInferType", dtypes)
     .set_attr("FInplaceOption", [(0, 0)]).set_attr("FGradient", gradient)
     .set_attr("FFuseExpr", (f"torch.{name}({{0}})",
                             None if cuda is None else f"{cuda or name}({{0}})")))


_unary("rsqrt", "1 / sqrt(x).", lambda n, g: [g[0] * (n.outputs[0] ** 3) * -0.5])
_unary("log1p", "log(1 + x), exact for small x.", lambda n, g: [g[0] / (n.inputs[0] + 1.0)])


# -- trigonometric, hyperbolic and special functions: gradients as TF 1.15's math_grad.py -------
def _gaussian(x, scale):
    # d erf(x) / dx = 2 / sqrt(pi) * exp(-x^2)
    return create_op("exp", -(x * x)) * (scale * 2.0 / math.sqrt(math.pi))


_unary("sin", "Sine.", lambda n, g: [g[0] * create_op("cos", n.inputs[0])])
_unary("cos", "Cosine.", lambda n, g: [-g[0] * create_op("sin", n.inputs[0])])
_unary("tan", "Tangent.", lambda n, g: [g[0] * (1.0 / create_op("cos", n.inputs[0])) ** 2.0])
_unary("asin", "Arcsine, in [-pi/2, pi/2].", lambda n, g: [
    g[0] / create_op("sqrt", 1.0 - n.inputs[0] * n.inputs[0])])
_unary("acos", "Arccosine, in [0, pi].", lambda n, g: [
    -g[0] / create_op("sqrt", 1.0 - n.inputs[0] * n.inputs[0])])
_unary("atan", "Arctangent, in (-pi/2, pi/2).", lambda n, g: [
    g[0] / (n.inputs[0] * n.inputs[0] + 1.0)])
_unary("sinh", "Hyperbolic sine.", lambda n, g: [g[0] * create_op("cosh", n.inputs[0])])
_unary("cosh", "Hyperbolic cosine.", lambda n, g: [g[0] * create_op("sinh", n.inputs[0])])
_unary("erf", "The error function.", lambda n, g: [g[0] * _gaussian(n.inputs[0], 1.0)])
_unary("erfc", "1 - erf(x), exact where erf(x) is near 1.", lambda n, g: [
    g[0] * _gaussian(n.inputs[0], -1.0)])
_unary("expm1", "exp(x) - 1, exact for small x.", lambda n, g: [
    g[0] * create_op("exp", n.inputs[0])])
_unary("lgamma", "log |Gamma(x)|.", lambda n, g: [g[0] * create_op("digamma", n.inputs[0])])
# digamma's derivative is polygamma(1, x): a hidden op of attr order n (no C++ function on CUDA)
_unary("digamma", "d lgamma(x) / dx.", lambda n, g: [
    g[0] * create_op("_polygamma", n.inputs[0], order=1)], cuda=None)


def _polygamma_shape(attrs, in_shapes, out_shapes):
    order = attrs.get("order")
    if not isinstance(order, int) or isinstance(order, bool) or order < 0:
        raise ShapeError(f"_polygamma's order must be an integer >= 0, got {order!r}")
    return same_shape(attrs, in_shapes, out_shapes)


(register_op("_polygamma").describe("polygamma(order, x): the order-th derivative of digamma.")
 .set_num_inputs(1).set_attr("FInferShape", _polygamma_shape).set_attr("FInferType", _FLOAT)
 .set_attr("FInplaceOption", [(0, 0)])
 .set_attr("FGradient", lambda n, g: [
     g[0] * create_op("_polygamma", n.inputs[0], order=n.attrs["order"] + 1)])
 .set_attr("FFuseExpr", ("torch.polygamma({order}, {0})", None)))

# TF 1.15 registers None as the gradient of Floor, Ceil and Round (math_grad.py)
_unary("floor", "The largest integer not above x; no gradient.", no_gradient)
_unary("ceil", "The smallest integer not below x; no gradient.", no_gradient)
_unary("round", "x rounded to the nearest integer, halves to the even one (banker's rounding, "
       "as TF); integers unchanged; no gradient.", no_gradient, dtype_rule(("float", "int")),
       cuda="nearbyint")


# -- running sums and products ---------------------------------------------------------------------
def _cumulative_shape(attrs, in_shapes, out_shapes):
    (x,), (out,) = same_shape(attrs, in_shapes, out_shapes)
    axis = attrs["axis"]
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise ShapeError(f"axis must be an integer, got {axis!r}")
    if x is not None and not -len(x) <= axis < len(x):
        raise ShapeError(f"axis {axis} is out of range for a tensor of shape {x} "
                         f"(rank {len(x)}: axis in [-{len(x)}, {len(x)}), rank at least 1)")
    return [x], [out]


def _cumulative(name, doc, gradient, dtypes=None):
    (register_op(name).describe(doc + " along attr axis; attrs exclusive (shifted one place) "
                                "and reverse (from the end), as TF 1.15's.")
     .set_num_inputs(1).set_attr("FInferShape", _cumulative_shape)
     .set_attr("FInferType", dtypes or dtype_rule()).set_attr("FGradient", gradient))


def _running(name, x, like, reverse):
    return create_op(name, x, axis=like.attrs["axis"], exclusive=like.attrs["exclusive"],
                     reverse=reverse)


# TF's rules: cumsum's gradient is the cumsum the other way; cumprod's divides by x (TF's too:
# wrong where x holds a zero)
_cumulative("cumsum", "Running sums", lambda n, g: [
    _running("cumsum", g[0], n, not n.attrs["reverse"])])
_cumulative("cumprod", "Running products", lambda n, g: [
    _running("cumsum", n.outputs[0] * g[0], n, not n.attrs["reverse"]) / n.inputs[0]])


def _logsumexp_grad(n, g):
    # TF's: the gradient's positive and negative parts, each a running logsumexp the other way
    # of log|g| - y, then exp(... + x); a part's log where it is empty is very negative
    x, y, floor = n.inputs[0], n.outputs[0], -1e30
    parts = []
    for keep, magnitude in ((create_op("greater", g[0], 0.0 * g[0]), g[0]),
                            (create_op("less", g[0], 0.0 * g[0]), -g[0])):
        safe = create_op("where", keep, magnitude, create_op("ones_like", magnitude))
        log_part = create_op("where", keep, create_op("log", safe),
                             create_op("ones_like", safe) * floor)
        parts.append(create_op("exp", _running("cumulative_logsumexp", log_part - y, n,
                                               not n.attrs["reverse"]) + x))
    return [parts[0] - parts[1]]


_cumulative("cumulative_logsumexp", "Running log(sum(exp(x)))", _logsumexp_grad, _FLOAT)


# -- cast ---------------------------------------------------------------------------------------
def _cast_type(attrs, in_types, out_types):
    if in_types[0] is not None and dtype_kind(in_types[0]) not in ANY:
        raise DTypeError(f"cannot cast a {in_types[0]} tensor")
    return in_types, [attrs["dtype"]]


def _cast_grad(node, grads):
    # TF's rule: a gradient flows back between float types only
    source, target = node.inputs[0].dtype, as_dtype(node.attrs["dtype"])
    if source.is_floating and target.is_floating:
        return [create_op("cast", grads[0], dtype=source.name)]
    return [None]


(register_op("cast").describe("x converted to attr dtype (floats to integers truncate toward "
                              "0, nonzero to True, True to 1).")
 .set_num_inputs(1).set_attr("FInferShape", same_shape).set_attr("FInferType", _cast_type)
 .set_attr("FGradient", _cast_grad))


# -- where ---------------------------------------------------------------------------------------
def _where_shape(attrs, in_shapes, out_shapes):
    cond, x, y = in_shapes
    (x, y), (out,) = same_shape(attrs, [x, y], out_shapes)
    if cond is not None and x is not None and cond != x and not (
            len(cond) == 1 and len(x) >= 1 and cond[0] == x[0]):
        raise ShapeError(f"condition must have x's shape {x} or be a vector of its first "
                         f"dimension {x[0] if x else '?'}, got {cond}")
    return [cond, x, y], [out]


def _where_type(attrs, in_types, out_types):
    cond, x, y = in_types
    if cond is not None and cond != "bool":
        raise DTypeError(f"the condition must be bool, got {cond}")
    _, (out,) = dtype_rule(ANY)(attrs, [x, y], out_types)
    return in_types, [out]


def _where_grad(node, grads):
    to_x, to_y = _select(node.inputs[0], grads[0])
    return [None, to_x, to_y]


# torch.where with the condition viewed with x's rank (a vector condition chooses rows)
_WHERE_ROWS = "torch.where({0}.view({0}.shape + (1,) * ({1}.dim() - {0}.dim()))"
(register_op("where").describe("x where cond, else y (TF 1.15: cond of x's shape, or a vector "
                               "choosing rows of x).")
 .set_num_inputs(3).set_attr("FInferShape", _where_shape).set_attr("FInferType", _where_type)
 # TF's Select takes no dim from a vector condition (a row choice) for its static shape
 .set_attr("FShapeCheckedInputs", lambda dims: (0,) if None not in dims[:2]
           and len(dims[0]) < len(dims[1]) else ())
 .set_attr("FInplaceOption", [(1, 0), (2, 0)]).set_attr("FGradient", _where_grad)
 # a vector condition chooses rows: viewed with x's rank; not on CUDA (jiterator broadcasts
 # from the last axis)
 .set_attr("FFuseExpr", (_WHERE_ROWS + ", {1}, {2})", None)))


# -- a Python number beside a tensor --------------------------------------------------------------
def _constant_like_type(attrs, in_types, out_types):
    dtype = in_types[0] or out_types[0]
    if dtype is None:
        return in_types, out_types
    kind, values = dtype_kind(dtype), attrs["value"]
    fits = {"float": lambda v: not isinstance(v, bool),
            "int": lambda v: not isinstance(v, bool) and float(v).is_integer(),
            "bool": lambda v: isinstance(v, bool)}.get(kind, lambda v: False)
    bad = [v for v in values if not fits(v)]
    if bad:
        raise DTypeError(f"the Python value {bad[0]!r} does not convert to {dtype}, the "
                         f"dtype of the tensor beside it (as in TensorFlow)")
    return [dtype], [dtype]


(register_op("_constant_like")
 .describe("A constant (attrs value, a flat tuple, and shape) of input 0's dtype: a Python "
           "number beside a tensor takes the tensor's dtype, as in TensorFlow (input 0 is "
           "read for its dtype only).")
 .set_num_inputs(1).set_attr("FInferType", _constant_like_type)
 .set_attr("FInferShape", lambda attrs, ins, outs: (ins, [tuple(attrs["shape"])]))
 .set_attr("FIgnoreInputs", [0]).set_attr("FGradient", no_gradient)
 .set_attr("TFoldable", True))


# -- confusion_matrix ------------------------------------------------------------------------------
def _confusion_shape(attrs, in_shapes, out_shapes):
    labels, predictions, weights = in_shapes
    known = [s for s in in_shapes if s is not None]
    if any(len(s) != 1 for s in known) or len({tuple(s) for s in known}) > 1:
        raise ShapeError(f"labels {labels}, predictions {predictions} and weights {weights} "
                         f"must be vectors of one length")
    vector = known[0] if known else None
    classes = attrs["num_classes"]
    return [vector] * 3, [(classes, classes)]


def _confusion_type(attrs, in_types, out_types):
    for what, dtype in zip(("labels", "predictions"), in_types[:2]):
        if dtype is not None and dtype_kind(dtype) != "int":
            raise DTypeError(f"{what} must be integer class ids, got {dtype}")
    return in_types, [in_types[2] or out_types[0]]


def _confusion_grad(node, grads):
    # weights[i] went to (labels[i], predictions[i]): its gradient is g there, read as
    # sum_j onehot(labels)[i, j] * (onehot(predictions) @ g^T)[i, j]
    labels, predictions, weights = node.inputs
    if not weights.dtype.is_floating:
        return [None, None, None]
    classes, dtype = node.attrs["num_classes"], weights.dtype.name

    def one_hot(ids):
        return create_op("one_hot", ids, depth=classes, on_value=1.0, off_value=0.0, axis=-1,
                         dtype=dtype)
    picked = create_op("matmul", one_hot(predictions), grads[0], transpose_b=True)
    return [None, None, create_op("reduce_sum", one_hot(labels) * picked, axis=(1,))]


# TUncapturable: the body checks the ids on the host, a sync a CUDA graph capture refuses
(register_op("confusion_matrix")
 .describe("(num_classes, num_classes) matrix of weights' dtype: weights[i] summed at (labels[i], "
           "predictions[i]); inputs labels, predictions (integer ids in [0, num_classes), else "
           "an error, as TF's asserts) and weights, vectors of one length.")
 .set_num_inputs(3).set_attr("FInferShape", _confusion_shape)
 .set_attr("FInferType", _confusion_type).set_attr("FGradient", _confusion_grad)
 .set_attr("TUncapturable", True))


# -- tf.bitwise and tf.bitcast: integers' bits, no gradient (TF's are NotDifferentiable) -------
_INT = dtype_rule(("int",))
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    _binary(_name, f"{_name.split('_')[1]} of the bits of integer tensors, numpy broadcasting.",
            _INT)
_binary("left_shift", "a << b, numpy broadcasting; b clamped to [0, bits - 1] as TF's kernel.",
        _INT)
_binary("right_shift", "a >> b (arithmetic for signed a), numpy broadcasting; b clamped to "
        "[0, bits - 1] as TF's kernel.", _INT)
(register_op("invert").describe("~x, the bits of an integer tensor flipped.").set_num_inputs(1)
 .set_attr("FInferShape", same_shape).set_attr("FInferType", _INT)
 .set_attr("FInplaceOption", [(0, 0)]).set_attr("FGradient", no_gradient))


def _bitcast_shape(attrs, in_shapes, out_shapes):
    """TF's Bitcast shape function: an input of a wider dtype gains a last dim of the ratio,
    one of a narrower dtype loses its last dim, which must be the ratio."""
    shape = in_shapes[0]
    if shape is None or attrs.get("in_size") is None:
        return in_shapes, out_shapes
    in_size, out_size = attrs["in_size"], attrs["out_size"]
    if in_size not in (1, 2, 4, 8) or out_size not in (1, 2, 4, 8):
        raise ShapeError(f"bitcast: in_size {in_size} and out_size {out_size} must be a "
                         f"dtype's bytes (1, 2, 4 or 8)")
    if in_size >= out_size:
        return in_shapes, [tuple(shape) + ((in_size // out_size,) if in_size > out_size else ())]
    if not shape or shape[-1] != out_size // in_size:
        raise ShapeError(f"Cannot bitcast from {attrs['in_enum']} to {attrs['out_enum']} due "
                         f"to shape. {shape[-1] if shape else 'a scalar'} does not match "
                         f"{out_size // in_size} (input shape {tuple(shape)})")
    return in_shapes, [tuple(shape[:-1])]


def _bitcast_type(attrs, in_types, out_types):
    """The output is attr dtype; attrs in_size / out_size must be the dtypes' bytes."""
    for dtype, size in ((in_types[0], attrs.get("in_size")), (attrs["dtype"],
                                                            attrs.get("out_size"))):
        if dtype is not None and (dtype in ("bool", "string") or
                                  np.dtype(dtype).itemsize != size):
            raise TypeError(f"bitcast: {dtype} is not a dtype of {size} bytes")
    return in_types, [attrs["dtype"]]


(register_op("bitcast").describe("x's bytes read as attr dtype (TF's Bitcast): wider to "
                                 "narrower adds a last dim, narrower to wider removes it.")
 .set_num_inputs(1).set_attr("FInferShape", _bitcast_shape)
 .set_attr("FInferType", _bitcast_type)
 .set_attr("FGradient", no_gradient))


# TTFType: TensorFlow's op type (op.type) where it is not our name in CamelCase
for _name, _type in (("mod", "FloorMod"), ("where", "Select"), ("floordiv", "FloorDiv"),
                     ("_constant_like", "Const")):
    Op.get(_name).set_attr("TTFType", _type)
