"""The TensorFlow-1.x functions: placeholders, variables, math, reductions, gradients."""
from __future__ import annotations

import re

import numpy as np

from ..nnvm import gradients as nnvm_gradients
from ..nnvm.composite import CompositeTensor
from ..nnvm.symbol import NodeEntry, Symbol, create_op, current_context, graph_input
from ..nnvm.tensor_shape import TensorShape
from ..nnvm.variables import Initializer, Variable, assign, assign_add, assign_sub, constant
from .dtypes import as_dtype, float32

__all__ = [
    "Variable",
    "abs",
    "add",
    "add_n",
    "all_variables",
    "argmax",
    "assign",
    "assign_add",
    "assign_sub",
    "constant",
    "divide",
    "equal",
    "exp",
    "global_variables",
    "global_variables_initializer",
    "gradients",
    "group",
    "initialize_all_variables",
    "log",
    "matmul",
    "multiply",
    "negative",
    "placeholder",
    "placeholder_with_default",
    "reduce_max",
    "reduce_mean",
    "reduce_sum",
    "sigmoid",
    "sign",
    "sqrt",
    "square",
    "subtract",
    "tanh",
    "trainable_variables",
    "variables_initializer",
]



def _as_symbol(value, name=None) -> Symbol:
    """Symbols pass through (an op.inputs[i] as its tensor); numbers and arrays become
    constants."""
    if isinstance(value, NodeEntry):
        return Symbol([value])
    return value if isinstance(value, Symbol) else constant(value, name=name)


def placeholder(dtype=float32, shape=None, name=None) -> Symbol:
    """An input fed at run time.  ``shape`` may contain None for "any size"; an int is a 1-D
    shape, as in TF (``shape=(batch_size)``)."""
    shape = (shape,) if isinstance(shape, (int, np.integer)) else shape
    shape = None if shape is None else tuple(None if d is None or d < 0 else int(d)
                                             for d in shape)
    name = current_context().unique_name(name or "Placeholder")
    return graph_input(name, kind="placeholder", shape=shape, dtype=as_dtype(dtype).name)


def placeholder_with_default(input, shape, name=None) -> Symbol:
    """A tensor that is ``input`` unless fed (``feed_dict={t: value}``).

    Parameters
    ----------
    input : tensor or array
        The value when nothing is fed.
    shape : list of int or None
        The static shape of the result, which may be less specific than ``input``'s
        (``[None, 3]``): a feed of any shape compatible with it is accepted.
    name : str, optional
        The node's name, ``"PlaceholderWithDefault"`` by default.

    Raises
    ------
    ValueError
        When ``input``'s static shape is not compatible with ``shape``, as TensorFlow does.
    """
    value = _as_symbol(input)
    declared = TensorShape(None if shape is None else
                           [None if d is None or d < 0 else int(d) for d in shape])
    if not value.get_shape().is_compatible_with(declared):
        raise ValueError(f"placeholder_with_default: input of shape {value.get_shape()} does "
                         f"not fit shape {declared}")
    # a copy that a feed replaces (CutFeeds); its static shape is the one declared
    result = create_op("copy", value, name=name or "PlaceholderWithDefault")
    result.graph.declared_shapes[result.outputs[0]] = declared
    return result


def global_variables(scope=None) -> list[Variable]:
    """The global variables of the current graph (collection ``GraphKeys.GLOBAL_VARIABLES``:
    every variable not made with other ``collections``), in creation order; with ``scope``,
    those whose name matches it (``re.match``)."""
    return _collection("variables", scope)


all_variables = global_variables


def trainable_variables(scope=None) -> list[Variable]:
    """The variables made ``trainable`` (collection ``GraphKeys.TRAINABLE_VARIABLES``)."""
    return _collection("trainable_variables", scope)


def local_variables(scope=None) -> list[Variable]:
    """The variables made with ``collections=[GraphKeys.LOCAL_VARIABLES]``."""
    return _collection("local_variables", scope)


def _collection(key, scope) -> list:
    values = current_context().get_collection(key)
    return values if scope is None else [v for v in values if re.match(scope, v.name)]


# -- math (TF 1.15 semantics; see tinyflow/ops/math.py for the dtype rules) -------------------
def _tensor(value) -> Symbol:
    """A symbol, or a constant of the value's own dtype (a Python number alone), or a list
    holding tensors packed (:func:`_packed`)."""
    if _holds_tensors(value):
        return _packed(value)
    if isinstance(value, CompositeTensor) and value._as_tensor() is not None:
        return value._as_tensor()  # an IndexedSlices as its dense tensor (TF's conversion)
    return _as_symbol(value) if isinstance(value, NodeEntry) else value if isinstance(
        value, Symbol) else constant(value)


def _holds_tensors(value) -> bool:
    return isinstance(value, (list, tuple)) and any(
        isinstance(v, (Symbol, NodeEntry)) or _holds_tensors(v) for v in value)


def _first_dtype(value):
    """The dtype of the first tensor in a nested list (TF's _get_dtype_from_nested_lists)."""
    for item in value:
        found = (_tensor(item).dtype if isinstance(item, (Symbol, NodeEntry)) else
                 _first_dtype(item) if isinstance(item, (list, tuple)) else None)
        if found is not None:
            return found
    return None


def _packed(value, dtype=None) -> Symbol:
    """A (nested) list holding tensors as TF's autopacking makes it a tensor: its items
    stacked (node ``packed``), numbers as constants of ``dtype`` (default: the first
    tensor's)."""
    dtype = _first_dtype(value) if dtype is None else dtype
    items = []
    for item in value:
        if isinstance(item, (list, tuple)):
            items.append(_packed(item, dtype))
        elif isinstance(item, (Symbol, NodeEntry)):
            item = _tensor(item)
            if item.dtype != dtype:
                raise TypeError(f"Cannot convert a list containing a tensor of dtype "
                                f"{item.dtype.name} to {dtype.name} (Tensor is: {item!r})")
            items.append(item)
        else:
            items.append(constant(item, dtype=dtype))
    return create_op("stack", *items, num_args=len(items), axis=0, name="packed")


def _like(value, tensor: Symbol) -> Symbol:
    """A Python number or numpy value beside ``tensor``, as a constant of its dtype: TF
    converts it to that dtype and so raises when it does not fit (``int_tensor * 0.5``)."""
    array = np.asarray(value)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"expected a tensor or a number, got {value!r}")
    return create_op("_constant_like", tensor, value=tuple(array.ravel().tolist()),
                     shape=array.shape)


def _operands(x, y):
    """``(x, y)`` as symbols; a number beside a tensor takes the tensor's dtype."""
    x, y = (_tensor(v) if _holds_tensors(v) or isinstance(v, CompositeTensor) else v
            for v in (x, y))
    if not isinstance(x, Symbol) and not isinstance(y, Symbol):
        x = constant(x)  # TF converts x first and y to x's dtype
    if not isinstance(y, Symbol):
        return x, _like(y, x)
    return (x if isinstance(x, Symbol) else _like(x, y)), y


def matmul(a, b, transpose_a=False, transpose_b=False, name=None) -> Symbol:
    """``a @ b`` of 2-D tensors, each transposed first when asked."""
    return create_op("matmul", _tensor(a), _tensor(b), transpose_a=transpose_a,
                     transpose_b=transpose_b, name=name)


def _binary(op_name, doc, tf_name=None):
    def apply(x, y, name=None):  # named as TF 1.15's function names it (tf.add: "Add")
        return create_op(op_name, *_operands(x, y), name=name or tf_name)
    apply.__name__ = op_name
    apply.__doc__ = doc + "  Numpy broadcasting; a Python number takes the tensor's dtype."
    return apply


add = _binary("elemwise_add", "``x + y``.", "Add")
subtract = _binary("elemwise_sub", "``x - y``.", "Sub")
multiply = _binary("elemwise_mul", "``x * y``.", "Mul")
divide = truediv = _binary("elemwise_div", "``x / y``: TF's truediv, integers are divided as "
                           "floats (int8/int16/uint8 as float32, int32/int64 as float64).",
                           "truediv")
floordiv = _binary("floordiv", "``x // y``, rounded down (Python's, TF's floordiv).", "floordiv")
floor_div = _binary("floordiv", "``x // y``, rounded down (Python's, TF's FloorDiv).")
mod = floormod = _binary("mod", "``x % y`` with the sign of y (Python's, TF's floormod).")
pow = _binary("elemwise_pow", "``x ** y``.")
maximum = _binary("maximum", "The larger of x and y.")
minimum = _binary("minimum", "The smaller of x and y.")
equal = _binary("equal", "``x == y`` as bool.  An integer and a float tensor compare by value "
                "(an extension for the seed's accuracy idiom; TF raises).")
not_equal = _binary("not_equal", "``x != y`` as bool (integer and float: by value).")
less = _binary("less", "``x < y`` as bool (integer and float: by value).")
less_equal = _binary("less_equal", "``x <= y`` as bool (integer and float: by value).")
greater = _binary("greater", "``x > y`` as bool (integer and float: by value).")
greater_equal = _binary("greater_equal", "``x >= y`` as bool (integer and float: by value).")
logical_and = _binary("logical_and", "``x and y`` of bool tensors.")
logical_or = _binary("logical_or", "``x or y`` of bool tensors.")


def div(x, y, name=None) -> Symbol:
    """TF 1.x's ``div``: Python 2's division, floor division for integers, ``/`` for floats."""
    x, y = _operands(x, y)
    return (floordiv if x.dtype.is_integer else divide)(x, y, name=name or "div")


def logical_xor(x, y, name=None) -> Symbol:
    """``x xor y`` of bool tensors, composed as TF 1.15 does: (x or y) and not (x and y)."""
    x, y = _operands(x, y)
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)),
                       name=name or "LogicalXor")


def _unary(op_name, doc):
    def apply(x, name=None):
        return create_op(op_name, _tensor(x), name=name)
    apply.__name__ = op_name
    apply.__doc__ = doc
    return apply


negative = _unary("negative", "``-x``.")
abs = _unary("abs", "``|x|``.")
sign = _unary("sign", "-1, 0 or 1 by the sign of x.")
exp = _unary("exp", "``e ** x`` (floats).")
log = _unary("log", "Natural logarithm (floats).")
log1p = _unary("log1p", "``log(1 + x)``, exact for small x (floats).")
sqrt = _unary("sqrt", "Square root (floats).")
rsqrt = _unary("rsqrt", "``1 / sqrt(x)`` (floats).")
tanh = _unary("tanh", "Hyperbolic tangent (floats).")
sigmoid = _unary("sigmoid", "``1 / (1 + exp(-x))`` (floats).")
logical_not = _unary("logical_not", "``not x`` of a bool tensor.")
sin = _unary("sin", "Sine (floats).")
cos = _unary("cos", "Cosine (floats).")
tan = _unary("tan", "Tangent (floats).")
asin = _unary("asin", "Arcsine, in [-pi/2, pi/2] (floats).")
acos = _unary("acos", "Arccosine, in [0, pi] (floats).")
atan = _unary("atan", "Arctangent, in (-pi/2, pi/2) (floats).")
sinh = _unary("sinh", "Hyperbolic sine (floats).")
cosh = _unary("cosh", "Hyperbolic cosine (floats).")
erf = _unary("erf", "The Gauss error function (floats).")
erfc = _unary("erfc", "``1 - erf(x)``, exact where erf(x) is near 1 (floats).")
expm1 = _unary("expm1", "``exp(x) - 1``, exact for small x (floats).")
lgamma = _unary("lgamma", "``log |Gamma(x)|`` (floats).")
digamma = _unary("digamma", "The derivative of lgamma (floats).")


def square(x, name=None) -> Symbol:
    """``x * x``, of x's dtype."""
    return create_op("__pow_scalar__", _tensor(x), scalar=2.0, name=name or "Square")


def add_n(inputs, name=None) -> Symbol:
    """The sum of a list of tensors of one shape and dtype."""
    inputs = [_tensor(x) for x in inputs]
    return create_op("elemwise_sum", *inputs, num_args=len(inputs), name=name)


def cast(x, dtype, name=None) -> Symbol:
    """``x`` as ``dtype``: floats to integers truncate toward zero, nonzero to True, True to 1.
    The gradient flows back between float types only, as in TF."""
    return create_op("cast", _tensor(x), dtype=as_dtype(dtype).name, name=name or "Cast")


def to_float(x, name="ToFloat") -> Symbol:
    return cast(x, "float32", name=name)


def to_double(x, name="ToDouble") -> Symbol:
    return cast(x, "float64", name=name)


def to_int32(x, name="ToInt32") -> Symbol:
    return cast(x, "int32", name=name)


def to_int64(x, name="ToInt64") -> Symbol:
    return cast(x, "int64", name=name)


def where(condition, x=None, y=None, name=None) -> Symbol:
    """TF 1.15's ``tf.where``: x where ``condition`` (bool), else y.  ``condition`` has x's
    shape, or is a vector choosing whole rows (x's first dimension); a Python number for x
    or y stands for a tensor of the other's shape.  With ``condition`` alone: the coordinates
    of its true (nonzero) elements, int64 ``[number of them, rank]`` in row-major order, a
    shape known once it ran (ops reading it are bound then: ``docs/control_flow.md``)."""
    if x is None and y is None:
        condition = _tensor(condition)
        result = create_op("where_true", condition, name=name or "Where")
        # what is known before it runs, as TF's: read by later ops as a placeholder would be
        result.graph.declared_shapes[result.outputs[0]] = TensorShape(
            [None, condition.get_shape().ndims])
        return result
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    numbers = [not isinstance(v, Symbol) for v in (x, y)]
    x, y = _operands(x, y)
    # a Python number stands for a tensor of the other's shape (TF 1.15 would raise)
    x, y = (create_op("broadcast_like", a, b) if number else a
            for a, b, number in ((x, y, numbers[0]), (y, x, numbers[1])))
    return create_op("where", _tensor(condition), x, y, name=name)


def clip_by_value(t, clip_value_min, clip_value_max, name=None) -> Symbol:
    """``t`` clipped to [min, max]: ``maximum(minimum(t, max), min)``, as TF 1.15 composes it
    (the gradient flows where t is inside, and to the bound tensors where it is clipped)."""
    with current_context().name_scope(name or "clip_by_value") as scope:
        return maximum(minimum(t, clip_value_max), clip_value_min, name=scope)


def _reduction(op_name, doc):
    def reduce(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
        axis = reduction_indices if axis is None else axis
        keepdims = keep_dims if keepdims is None else keepdims
        if axis is not None:
            axis = (int(axis),) if isinstance(axis, (int, np.integer)) else tuple(
                int(a) for a in axis)
        return create_op(op_name, _tensor(input_tensor), axis=axis, keepdims=bool(keepdims),
                         name=name)
    reduce.__name__ = op_name
    reduce.__doc__ = (f"{doc} over ``axis`` (or ``reduction_indices``; None = all axes); "
                      f"``keepdims`` (or ``keep_dims``) keeps reduced axes as size 1.")
    return reduce


reduce_sum = _reduction("reduce_sum", "Sum (of a bool tensor: its 0/1 values as float32, an "
                        "extension: TF raises)")
reduce_mean = _reduction("reduce_mean", "Mean (integers: truncated, as TF; of a bool tensor: "
                         "the 0/1 mean as float32, an extension for the accuracy idiom)")
reduce_max = _reduction("reduce_max", "Maximum")
reduce_min = _reduction("reduce_min", "Minimum")
reduce_prod = _reduction("reduce_prod", "Product")
reduce_any = _reduction("reduce_any", "Logical or of a bool tensor")
reduce_all = _reduction("reduce_all", "Logical and of a bool tensor")


def _arg(op_name):
    def arg(input, axis=None, name=None, dimension=None, output_type="int64"):
        axis = dimension if axis is None else axis
        return create_op(op_name, _tensor(input), axis=0 if axis is None else int(axis),
                         output_type=as_dtype(output_type).name, name=name)
    arg.__name__ = op_name
    arg.__doc__ = (f"Index of the {'largest' if op_name == 'argmax' else 'smallest'} value "
                   f"along ``axis`` (or ``dimension``; default 0), as ``output_type`` (int64).")
    return arg


argmax, argmin = _arg("argmax"), _arg("argmin")


def arg_max(input, dimension, output_type="int64", name=None) -> Symbol:
    """TF 1.x's ``arg_max``: :func:`argmax` along ``dimension``."""
    return argmax(input, dimension, name=name, output_type=output_type)


def arg_min(input, dimension, output_type="int64", name=None) -> Symbol:
    """TF 1.x's ``arg_min``: :func:`argmin` along ``dimension``."""
    return argmin(input, dimension, name=name, output_type=output_type)


__all__ += [
    "acos", "arg_max", "arg_min", "argmin", "asin", "atan", "cast", "clip_by_value", "cos", "cosh",
    "digamma", "div", "erf", "erfc", "expm1", "floor_div", "floordiv", "floormod", "greater",
    "greater_equal", "less", "less_equal", "lgamma", "log1p", "logical_and", "logical_not",
    "logical_or", "logical_xor", "maximum", "minimum", "mod", "not_equal", "pow", "reduce_all",
    "reduce_any", "reduce_min", "reduce_prod", "rsqrt", "sin", "sinh", "tan", "to_double",
    "to_float", "to_int32", "to_int64", "truediv", "where",
]
__all__ += ["control_dependencies", "identity", "local_variables", "local_variables_initializer",
            "no_op", "stop_gradient"]
# -- end of math --------------------------------------------------------------------------------


def group(*inputs, name=None) -> Symbol:
    """An operation (one ``no_op`` node, ``"group_deps"`` by default) that runs after all of
    ``inputs`` (tensors or operations, or lists of them); ``sess.run`` of it returns None."""
    flat, stack = [], list(inputs)[::-1]
    while stack:  # nested lists too (TF's nest.flatten)
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(reversed(x))
        else:
            flat.append(x)
    with control_dependencies(flat):
        return no_op(name=name or "group_deps")


def no_op(name=None) -> Symbol:
    """An operation doing nothing but wait for its control dependencies
    (``with tf.control_dependencies([...]): tf.no_op()``)."""
    node = create_op("no_op", name=name or "NoOp").node
    return Symbol([NodeEntry(node, 0)], is_operation=True)


def control_dependencies(control_inputs):
    """``with tf.control_dependencies([a, b]):`` ops made inside run after ``a`` and ``b``
    (tensors or operations); ``None`` clears the enclosing blocks' (see
    :meth:`tf.Graph.control_dependencies
    <tinyflow.nnvm.symbol.GraphContext.control_dependencies>`)."""
    return current_context().control_dependencies(control_inputs)


def identity(input, name=None) -> Symbol:
    """A tensor holding ``input``'s value (a copy); with ``tf.control_dependencies``, the way
    to read a value after an update."""
    return create_op("copy", _tensor(input), name=name or "Identity")


def stop_gradient(input, name=None) -> Symbol:
    """``input``, held constant by ``tf.gradients``: no gradient flows back through it."""
    return create_op("stop_gradient", _tensor(input), name=name or "StopGradient")


def local_variables_initializer() -> Initializer:
    """An op giving every local variable (:func:`local_variables`) its initial value."""
    return Initializer(local_variables())


def variables_initializer(var_list, name="init") -> Initializer:
    """An op giving each variable of ``var_list`` its initial value (see
    :class:`~tinyflow.nnvm.variables.Initializer`)."""
    return Initializer(var_list)


def global_variables_initializer() -> Initializer:
    """An op giving every variable of the current graph its initial value.

    A variable whose shape is not known yet (a layer's weight, whose shape comes from the feeds;
    an optimizer's slot) is initialised by the session at the first run that infers its shape.
    A layer's variable that the user assigned (or restored) first keeps that value.
    """
    return Initializer(global_variables())


initialize_all_variables = global_variables_initializer


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients="none") -> list:
    """Symbolic d(sum of ys)/dx for each x in ``xs``.  ``stop_gradients`` (tensors) are held
    constant: no gradient flows back through them.  For an x that ys do not depend on:
    None, or zeros of its shape with ``unconnected_gradients="zero"``
    (``tf.UnconnectedGradients.ZERO``).  ``colocate_gradients_with_ops``, ``gate_gradients``
    and ``aggregation_method`` are taken and change nothing (one device, gradients summed)."""
    unconnected = getattr(unconnected_gradients, "value", unconnected_gradients)
    if unconnected not in ("none", "zero"):
        raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}")
    if isinstance(grad_ys, Symbol) and not isinstance(ys, (list, tuple)):  # one, as TF takes
        grad_ys = [grad_ys]
    return nnvm_gradients(ys, xs, grad_ys, unconnected=unconnected,
                          stop_gradients=stop_gradients or ())
