"""The TensorFlow-1.x functions: placeholders, variables, math, reductions, gradients."""
from __future__ import annotations

import numpy as np

from .dtypes import as_dtype, float32
from .nnvm import gradients as nnvm_gradients
from .nnvm.symbol import Group, Symbol, create_op, current_context
from .nnvm.symbol import Variable as _Variable
from .variables import Initializer, Variable

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
    "pad",
    "placeholder",
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
    """Symbols pass through; numbers and arrays become constants."""
    return value if isinstance(value, Symbol) else constant(value, name=name)


def placeholder(dtype=float32, shape=None, name=None) -> Symbol:
    """An input fed at run time.  ``shape`` may contain None for "any size"."""
    shape = None if shape is None else tuple(None if d is None or d < 0 else int(d)
                                             for d in shape)
    name = name or current_context().unique_name("placeholder")
    return _Variable(name, kind="placeholder", shape=shape, dtype=as_dtype(dtype).name)


def all_variables() -> list[Variable]:
    """The variables created in the current graph context, in creation order."""
    return list(current_context().variables)


global_variables = all_variables


def trainable_variables() -> list[Variable]:
    return [v for v in all_variables() if v.trainable]


def _shape(shape):
    return tuple(int(d) for d in ([shape] if isinstance(shape, int) else shape))


def constant(value, dtype=float32, shape=None, name=None) -> Symbol:
    """A constant tensor from a number or array (broadcast to ``shape`` when given).

    ``dtype`` (float32 by default, also for None) is kept: integers stay exact, int64 ones
    beyond 2**53 too.  As in TensorFlow, an integer or bool dtype refuses Python floats
    (``tf.constant(1.5, tf.int64)`` is a TypeError) while numpy arrays are cast.
    """
    dtype = as_dtype(float32 if dtype is None else dtype)
    if dtype.name == "string":
        raise TypeError("TinyFlow has no string tensors")
    exact = dtype.is_integer or dtype.is_bool
    python_floats = (not isinstance(value, (np.ndarray, np.generic))
                     and np.asarray(value).dtype.kind in "fc")
    if exact and python_floats:
        raise TypeError(f"expected {dtype.name}, got {value!r}: Python floats do not convert "
                        f"to an integer or bool tensor")
    array = np.asarray(value, dtype=dtype.as_numpy_dtype)
    if shape is not None:
        array = np.broadcast_to(array, _shape(shape))
    cast = int if exact else float
    return create_op("constant", value=tuple(cast(v) for v in array.ravel()),
                     shape=array.shape, dtype=dtype.name, name=name)


def matmul(a, b, transpose_a=False, transpose_b=False, name=None) -> Symbol:
    return create_op("matmul", a, b, transpose_a=transpose_a, transpose_b=transpose_b,
                     name=name)


def _binary(op_name):
    def apply(x, y, name=None):
        return create_op(op_name, _as_symbol(x), _as_symbol(y), name=name)
    apply.__name__ = op_name
    return apply


add, subtract, multiply, divide = (_binary(n) for n in (
    "elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div"))


def _unary(op_name):
    def apply(x, name=None):
        return create_op(op_name, x, name=name)
    apply.__name__ = op_name
    return apply


negative, exp, log, sqrt, tanh, sigmoid, abs, sign = (
    _unary(n) for n in ("negative", "exp", "log", "sqrt", "tanh", "sigmoid", "abs", "sign"))


def square(x, name=None) -> Symbol:
    return create_op("__pow_scalar__", x, scalar=2.0, name=name)


def add_n(inputs, name=None) -> Symbol:
    return create_op("elemwise_sum", *inputs, num_args=len(inputs), name=name)


def _reduction(op_name):
    def reduce(x, axis=None, keepdims=False, name=None, reduction_indices=None,
               keep_dims=None):
        axis = reduction_indices if axis is None else axis
        keepdims = keep_dims if keep_dims is not None else keepdims
        if axis is not None:
            axis = (int(axis),) if isinstance(axis, (int, np.integer)) else tuple(
                int(a) for a in axis)
        return create_op(op_name, x, axis=axis, keepdims=bool(keepdims), name=name)
    reduce.__name__ = op_name
    reduce.__doc__ = (f"{op_name} over ``axis`` (or ``reduction_indices``; None = all axes); "
                      f"``keepdims`` keeps reduced axes as size 1.")
    return reduce


reduce_sum, reduce_mean, reduce_max = (_reduction(n) for n in (
    "reduce_sum", "reduce_mean", "reduce_max"))


def argmax(x, axis=0, name=None) -> Symbol:
    """Index of the largest value along ``axis``, as float32."""
    return create_op("argmax", x, axis=int(axis), name=name)


def equal(x, y, name=None) -> Symbol:
    """1.0 where x == y, else 0.0."""
    return create_op("equal", _as_symbol(x), _as_symbol(y), name=name)


def pad(x, dim, pad, name=None) -> Symbol:
    """Zero-pad ``x`` along ``dim``: ``pad < 0`` pads -pad in front, ``pad > 0`` pad behind."""
    return create_op("pad", x, dim=int(dim), pad=int(pad), name=name)


def assign(ref, value, name=None) -> Symbol:
    """Write ``value`` into variable ``ref``; the result is the variable's new value."""
    if not isinstance(ref, Symbol) or ref.node.kind != "variable":
        raise TypeError(f"assign writes to a tf.Variable, got {ref!r}")
    return create_op("assign", ref, _as_symbol(value), name=name)


def _update_value(ref, value, op_name) -> Symbol:
    """``value`` as an input of ``op_name`` writing ``ref``: a number becomes a constant of the
    variable's dtype (so ``tf.assign_add(global_step, 1)`` adds an int64 1)."""
    if not isinstance(ref, Symbol) or ref.node.kind != "variable":
        raise TypeError(f"{op_name} writes to a tf.Variable, got {ref!r}")
    if isinstance(value, Symbol):
        return value
    return constant(value, dtype=ref.node.attrs.get("dtype", "float32"))


def assign_add(ref, value, name=None) -> Symbol:
    """``ref <- ref + value`` for a variable ``ref``; the result is its new value."""
    return create_op("assign_add", ref, _update_value(ref, value, "assign_add"), name=name)


def assign_sub(ref, value, name=None) -> Symbol:
    """``ref <- ref - value`` for a variable ``ref``; the result is its new value."""
    return create_op("assign_sub", ref, _update_value(ref, value, "assign_sub"), name=name)


def group(*inputs, name=None) -> Symbol:
    """An op that runs all of ``inputs``; ``sess.run`` of it returns None."""
    flat = []
    for x in inputs:
        flat.extend(x if isinstance(x, (list, tuple)) else [x])
    return Group(flat)


def variables_initializer(var_list, name="init") -> Initializer:
    """An op giving each variable of ``var_list`` its initial value (see
    :class:`~tinyflow.variables.Initializer`)."""
    return Initializer(var_list)


def global_variables_initializer() -> Initializer:
    """An op giving every variable of the current graph its initial value.

    A variable whose shape is not known yet (a layer's weight, whose shape comes from the feeds;
    an optimizer's slot) is initialised by the session at the first run that infers its shape.
    A layer's variable that the user assigned (or restored) first keeps that value.
    """
    return Initializer(all_variables())


initialize_all_variables = global_variables_initializer


def gradients(ys, xs, grad_ys=None) -> list:
    """Symbolic d(sum of ys)/dx for each x in ``xs``; None for an x that ys do not depend on."""
    return nnvm_gradients(ys, xs, grad_ys, unconnected="none")
