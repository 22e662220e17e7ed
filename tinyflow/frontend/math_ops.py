"""TF-1 math beyond the elementwise and reduction ops of :mod:`tinyflow.frontend.api`, composed from
them as TensorFlow 1.15 composes it (so gradients come from the primitives' rules):
tensordot, squared_difference, reduce_logsumexp, the clipping functions and global_norm,
confusion_matrix, atan2, cumsum and cumprod (their own ops), l2_normalize, is_finite / is_nan /
is_inf, reciprocal, log_sigmoid, count_nonzero, scalar_mul and the variance / std / euclidean-norm reductions.

``__all__`` is what TensorFlow 1.15 has as ``tf.*``; :data:`MATH_ONLY` lists the functions it has
only as ``tf.math.*`` (and ``tf.nn.l2_normalize``), which :mod:`tinyflow.tf_math` and
:mod:`tinyflow.frontend.nn` import from here.
"""
from __future__ import annotations

import math as _math
import numbers

import numpy as np

from ..nnvm.composite import CompositeTensor
from ..nnvm.symbol import NodeEntry, Symbol, create_op, current_context
from ..nnvm.tensor_shape import TensorShape
from .api import (
    _holds_tensors,
    _like,
    _operands,
    _packed,
    _tensor,
    add,
    cast,
    constant,
    equal,
    identity,
    log,
    matmul,
    maximum,
    minimum,
    multiply,
    not_equal,
    reduce_max,
    reduce_mean,
    reduce_sum,
    rsqrt,
    sqrt,
    square,
    stop_gradient,
    subtract,
    where,
)
from .api import abs as _abs
from .api import clip_by_value as _clip_by_value
from .api import exp as _exp
from .array_ops import ones_like, reshape, transpose, zeros_like
from .array_ops import shape as shape_of
from .array_ops import size as array_size
from .dtypes import as_dtype, int32, int64
from .indexed_slices import IndexedSlices
from .partitioned_variables import PartitionedVariable

__all__ = [
    "accumulate_n",
    "atan2",
    "ceil",
    "clip_by_average_norm",
    "clip_by_global_norm",
    "clip_by_norm",
    "clip_by_value",
    "confusion_matrix",
    "convert_to_tensor",
    "count_nonzero",
    "cumprod",
    "cumsum",
    "floor",
    "global_norm",
    "is_finite",
    "is_inf",
    "is_nan",
    "log_sigmoid",
    "reciprocal",
    "reduce_logsumexp",
    "rint",
    "round",
    "scalar_mul",
    "squared_difference",
    "tensordot",
]
MATH_ONLY = ("l2_normalize", "nextafter", "reduce_euclidean_norm", "reduce_std",
             "reduce_variance")


def _reduction_args(axis, keepdims, reduction_indices, keep_dims):
    """TensorFlow's reduction arguments, their deprecated aliases folded in: (axis, keepdims)."""
    axis = reduction_indices if axis is None else axis
    return axis, bool(keep_dims if keepdims is None else keepdims)


def _float_input(x, function) -> Symbol:
    x = _tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"{function} takes a float tensor, got {x.dtype.name}")
    return x


def atan2(y, x, name=None) -> Symbol:
    """The angle of the point ``(x, y)``, in [-pi, pi] (floats), numpy broadcasting; a Python
    number takes the tensor's dtype."""
    return create_op("atan2", *_operands(y, x), name=name)


def _cumulative(op_name, x, axis, exclusive, reverse, name):
    if isinstance(axis, (Symbol, NodeEntry)) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"tf.{op_name}: axis must be a Python integer in TinyFlow, got {axis!r}")
    return create_op(op_name, _tensor(x), axis=int(axis), exclusive=bool(exclusive),
                     reverse=bool(reverse), name=name)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None) -> Symbol:
    """Running sums of ``x`` along ``axis``, as TF 1.15's: ``exclusive`` leaves each element out
    of its own sum (the first is 0), ``reverse`` sums from the end.  ``cumsum([a, b, c],
    exclusive=True, reverse=True)`` is ``[b + c, c, 0]``."""
    return _cumulative("cumsum", x, axis, exclusive, reverse, name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None) -> Symbol:
    """Running products of ``x`` along ``axis``; ``exclusive`` and ``reverse`` as
    :func:`cumsum`'s (the first of an exclusive product is 1).  The gradient is TF's, which
    divides by x: wrong where x holds a zero, as in TF."""
    return _cumulative("cumprod", x, axis, exclusive, reverse, name)


# -- tensordot -------------------------------------------------------------------------------
def _axis_list(value) -> list:
    return [int(value)] if isinstance(value, numbers.Integral) else [int(v) for v in value]


def _tensordot_axes(axes, a_shape, b_shape):
    """``axes`` (an int, or a pair of ints / lists) -> (a's axes, b's axes), non-negative."""
    context = f"tensordot of a {a_shape} and b {b_shape}"
    if isinstance(axes, Symbol):
        raise TypeError(f"{context}: axes must be an int or a pair of lists known when the graph "
                         f"is built, got a tensor")
    if isinstance(axes, numbers.Integral):
        if not 0 <= axes <= min(len(a_shape), len(b_shape)):
            raise ValueError(f"{context}: axes={axes} must be in [0, min(rank a, rank b)]")
        a_axes, b_axes = list(range(len(a_shape) - axes, len(a_shape))), list(range(axes))
    elif len(axes) != 2:
        raise ValueError(f"{context}: axes must be an int or a pair [a_axes, b_axes], got {axes}")
    else:
        a_axes, b_axes = _axis_list(axes[0]), _axis_list(axes[1])
    if len(a_axes) != len(b_axes):
        raise ValueError(f"{context}: axes {axes} pair {len(a_axes)} axes of a with "
                         f"{len(b_axes)} of b")
    for which, listed, shape in (("a", a_axes, a_shape), ("b", b_axes, b_shape)):
        bad = [i for i in listed if not -len(shape) <= i < len(shape)]
        if bad or len({i % len(shape) for i in listed}) != len(listed):
            raise ValueError(f"{context}: axes {listed} of {which} are out of range or repeated "
                             f"for its rank {len(shape)}")
    a_axes, b_axes = [i % len(a_shape) for i in a_axes], [i % len(b_shape) for i in b_axes]
    for i, j in zip(a_axes, b_axes):
        if None not in (a_shape[i], b_shape[j]) and a_shape[i] != b_shape[j]:
            raise ValueError(f"{context}: axis {i} of a ({a_shape[i]}) and axis {j} of b "
                             f"({b_shape[j]}) must have one size to be contracted")
    return a_axes, b_axes


def _as_matrix(x, perm, split, shape, what):
    """x transposed by ``perm`` and reshaped to 2-D, its first ``split`` axes as rows."""
    if perm != list(range(len(perm))):
        x = transpose(x, perm)
    sizes = [shape[i] for i in perm]
    if len(sizes) == 2 and split == 1:
        return x
    rows, cols = sizes[:split], sizes[split:]
    if None in rows and None in cols:
        raise ValueError(f"tensordot: {what} {shape} has unknown sizes both among its free and "
                         f"its contracted axes; give it a static shape")
    return reshape(x, [-1 if None in part else _math.prod(part) for part in (rows, cols)])


def tensordot(a, b, axes, name=None) -> Symbol:
    """The sum of ``a * b`` over pairs of axes, TensorFlow's (and numpy's) tensordot.

    Parameters
    ----------
    a, b : Symbol
        Tensors whose ranks are known when the graph is built.
    axes : int or pair
        An int n contracts the last n axes of a with the first n of b; a pair ``[a_axes,
        b_axes]`` (ints or lists of one length) names the axes, which must have one size.
    name : str, optional

    Returns
    -------
    Symbol of shape a's free axes + b's free axes, composed as transpose, reshape and one
    matmul (as TensorFlow); free sizes unknown when the graph is built are tf.shape's, known
    when a session binds it (a BiLSTM's [batch, time, units] into a dense layer).
    """
    a, b = _tensor(a), _tensor(b)
    a_shape, b_shape = a.get_shape(), b.get_shape()
    if a_shape.ndims is None or b_shape.ndims is None:
        raise ValueError("tensordot needs the ranks of a and b when the graph is built")
    a_shape, b_shape = a_shape.as_list(), b_shape.as_list()
    a_axes, b_axes = _tensordot_axes(axes, a_shape, b_shape)
    a_free = [i for i in range(len(a_shape)) if i not in a_axes]
    b_free = [i for i in range(len(b_shape)) if i not in b_axes]
    for i, j in zip(a_axes, b_axes):  # a contracted size one side knows
        a_shape[i] = b_shape[j] = a_shape[i] if a_shape[i] is not None else b_shape[j]
    sizes = [a_shape[i] for i in a_free] + [b_shape[i] for i in b_free]
    with current_context().name_scope(name or "Tensordot") as scope:  # TF's scope
        a_matrix = _as_matrix(a, a_free + a_axes, len(a_free), a_shape, "a")
        b_matrix = _as_matrix(b, b_axes + b_free, len(b_axes), b_shape, "b")
        if len(a_free) == len(b_free) == 1:
            return matmul(a_matrix, b_matrix, name=scope)
        if sizes.count(None) > 1:  # the free sizes as tf.shape gives them (TF's)
            dynamic = [shape_of(a)[i] for i in a_free] + [shape_of(b)[i] for i in b_free]
            sizes = [d if known is None else known for d, known in zip(dynamic, sizes)]
        return reshape(matmul(a_matrix, b_matrix), [-1 if d is None else d for d in sizes],
                       name=scope)


# -- elementwise -----------------------------------------------------------------------------
def squared_difference(x, y, name=None) -> Symbol:
    """``(x - y) ** 2``, numpy broadcasting; the gradient ``2 (x - y) g`` (TF's)."""
    return square(subtract(*_operands(x, y)), name=name or "SquaredDifference")


def is_finite(x, name=None) -> Symbol:
    """bool: x is neither infinite nor NaN (floats), computed as ``x - x == 0``."""
    x = _float_input(x, "is_finite")
    return equal(x - x, 0, name=name)


def is_nan(x, name=None) -> Symbol:
    """bool: x is NaN (floats), computed as ``x != x``."""
    x = _float_input(x, "is_nan")
    return not_equal(x, x, name=name or "IsNan")


def is_inf(x, name=None) -> Symbol:
    """bool: x is +inf or -inf (floats)."""
    return equal(_abs(_float_input(x, "is_inf")), np.inf, name=name)


def reciprocal(x, name=None) -> Symbol:
    """``1 / x`` (floats)."""
    return create_op("__rdiv_scalar__", _float_input(x, "reciprocal"), scalar=1.0,
                     name=name or "Reciprocal")


def floor(x, name=None) -> Symbol:
    """The largest integer not above x, elementwise (floats; TF registers no gradient)."""
    return create_op("floor", _tensor(x), name=name)


def ceil(x, name=None) -> Symbol:
    """The smallest integer not below x, elementwise (floats; TF registers no gradient)."""
    return create_op("ceil", _tensor(x), name=name)


def round(x, name=None) -> Symbol:
    """x rounded to the nearest integer, halves to the even one as TensorFlow's banker's
    rounding (``round(2.5) = 2``, ``round(-0.5) = -0``); integers are unchanged; no gradient."""
    return create_op("round", _tensor(x), name=name)


def rint(x, name=None) -> Symbol:
    """The nearest integer to x, halves to the even one: :func:`round`'s values (TF's Rint)."""
    return create_op("round", _float_input(x, "tf.rint"), name=name or "Rint")


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None) -> Symbol:
    """The sum of a list of tensors of one shape and dtype (TF 1.15's add_n by another name),
    checked as TF checks it: the list, and ``shape`` and ``tensor_dtype`` when given."""
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and "
                         "shape")
    inputs = [_tensor(x) for x in inputs]
    shapes = [x.get_shape() for x in inputs] + ([] if shape is None else [TensorShape(shape)])
    for other in shapes[1:]:
        if not shapes[0].is_compatible_with(other):
            raise ValueError(f"Shapes {shapes[0]} and {other} are not compatible")
    dtypes = {x.dtype for x in inputs} | ({as_dtype(tensor_dtype)} if tensor_dtype else set())
    if len(dtypes) > 1:
        raise ValueError(f"inputs must be a list of at least one Tensor with the same dtype "
                         f"and shape, got dtypes {sorted(d.name for d in dtypes)}")
    if len(inputs) == 1:  # TF returns the one input as it is
        return identity(inputs[0], name=name)
    return create_op("elemwise_sum", *inputs, num_args=len(inputs), name=name or "AccumulateN")


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None) -> Symbol:
    """``value`` as a tensor: a tensor (or variable) itself, anything else ``tf.constant(value,
    dtype)``.

    ``preferred_dtype`` is tried for a value that is not a tensor when ``dtype`` is None, and
    dropped (the value's own dtype kept) when the value does not convert to it, as TensorFlow.

    Raises
    ------
    ValueError
        A tensor whose dtype is not ``dtype`` (TF's "Tensor conversion requested dtype ...").
    """
    if isinstance(value, NodeEntry):  # an op.inputs[i]
        value = Symbol([value])
    if isinstance(value, PartitionedVariable):  # its shards concatenated (TF's _concat)
        value = value.as_tensor()
    if isinstance(value, CompositeTensor) and value._as_tensor() is not None:
        value = value._as_tensor()  # an IndexedSlices densified
    if _holds_tensors(value):  # TF's autopacking: [t, 2 * t] stacked
        value = _packed(value, as_dtype(dtype) if dtype is not None else None)
    if isinstance(value, Symbol):
        if dtype is not None and as_dtype(dtype) != value.dtype:
            raise ValueError(f"Tensor conversion requested dtype {as_dtype(dtype).name} for "
                             f"Tensor with dtype {value.dtype.name}: {value!r}")
        return value
    if dtype is None and preferred_dtype is not None:
        try:
            return constant(value, dtype=preferred_dtype, name=name)
        except (TypeError, ValueError):
            pass
    return constant(value, dtype=dtype, name=name)


def _softplus(x: Symbol, name=None) -> Symbol:
    # log(1 + exp(x)) = m + log(exp(-m) + exp(x - m)) with m = max(x, 0): no overflow, and the
    # gradient is sigmoid(x) everywhere, 0 included (m's gradient cancels out)
    m = create_op("relu", x)
    return create_op("elemwise_add", m, log(_exp(-m) + _exp(x - m)), name=name)


def log_sigmoid(x, name=None) -> Symbol:
    """``log(sigmoid(x)) = -softplus(-x)``, computed stably as TensorFlow does."""
    x = _float_input(x, "log_sigmoid")
    with current_context().name_scope(name or "LogSigmoid") as scope:
        return create_op("negative", _softplus(-x), name=scope)


def scalar_mul(scalar, x, name=None) -> Symbol:
    """``scalar * x`` for a Python number or a 0-d tensor ``scalar``."""
    if isinstance(scalar, Symbol) and scalar.get_shape().ndims not in (None, 0):
        raise ValueError(f"scalar_mul: scalar must be 0-D, got shape {scalar.get_shape()}")
    return multiply(scalar, x, name=name)


# -- reductions ------------------------------------------------------------------------------
def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                     keep_dims=None) -> Symbol:
    """``log(sum(exp(x)))`` over ``axis``, computed as TensorFlow 1.15: shifted by the max
    (held constant for the gradient, replaced by 0 where it is not finite, so a row of -inf
    gives -inf and one holding +inf gives +inf).  The gradient is ``softmax(x) * g``."""
    x = _float_input(input_tensor, "reduce_logsumexp")
    axis, keepdims = _reduction_args(axis, keepdims, reduction_indices, keep_dims)
    with current_context().name_scope(name or "ReduceLogSumExp") as scope:
        raw_max = reduce_max(x, axis, keepdims=True)
        shift = stop_gradient(where(is_finite(raw_max), raw_max, zeros_like(raw_max)))
        result = log(reduce_sum(_exp(x - shift), axis, keepdims=keepdims))
        if not keepdims:
            shift = create_op("reshape_like", shift, result)
        return add(result, shift, name=scope)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None) -> Symbol:
    """The mean of squared deviations from the mean over ``axis`` (TF's ``tf.math``)."""
    x = _float_input(input_tensor, "reduce_variance")
    deviations = square(x - reduce_mean(x, axis, keepdims=True))
    return reduce_mean(deviations, axis, keepdims=bool(keepdims), name=name)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None) -> Symbol:
    """``sqrt(reduce_variance(x))`` over ``axis``."""
    return sqrt(reduce_variance(input_tensor, axis, keepdims), name=name)


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None) -> Symbol:
    """``sqrt(sum(x ** 2))`` over ``axis`` (floats)."""
    x = _float_input(input_tensor, "reduce_euclidean_norm")
    return sqrt(reduce_sum(square(x), axis, keepdims=bool(keepdims)), name=name)


def count_nonzero(input_tensor, axis=None, keepdims=None, dtype=int64, name=None,
                  reduction_indices=None, keep_dims=None) -> Symbol:
    """How many entries are not zero (not False) over ``axis``, as ``dtype`` (int64)."""
    x = _tensor(input_tensor)
    axis, keepdims = _reduction_args(axis, keepdims, reduction_indices, keep_dims)
    with current_context().name_scope(name or "count_nonzero"):  # TF's: count_nonzero/Sum
        nonzero = cast(not_equal(x, False if x.dtype.is_bool else 0), int64)
        total = reduce_sum(nonzero, axis, keepdims=keepdims)
        return total if as_dtype(dtype) == int64 else cast(total, dtype)


# -- norms and clipping ----------------------------------------------------------------------
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None) -> Symbol:
    """``x / sqrt(max(sum(x ** 2, axis), epsilon))``: TF's ``x * rsqrt(max(square_sum,
    epsilon))`` (``dim`` is the deprecated name of ``axis``; None: all axes)."""
    if axis is not None and dim is not None:
        raise ValueError("l2_normalize: give axis or its deprecated alias dim, not both")
    x = _float_input(x, "l2_normalize")
    with current_context().name_scope(name or "l2_normalize") as scope:
        square_sum = reduce_sum(square(x), dim if axis is None else axis, keepdims=True)
        return multiply(x, rsqrt(maximum(square_sum, float(epsilon))), name=scope)


def _norm_like(value, t) -> Symbol:
    return value if isinstance(value, Symbol) else _like(float(value), t)


def _on_values(t, clip):
    """TF 1.15's clip functions on an IndexedSlices: ``clip`` of its values (duplicate rows
    not summed), the indices and the dense shape kept."""
    if isinstance(t, IndexedSlices):
        return IndexedSlices(clip(t.values), t.indices, t.dense_shape)
    return clip(t)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``t`` clipped to [min, max]: ``maximum(minimum(t, max), min)``, as TF 1.15 composes it
    (the gradient flows where t is inside, and to the bound tensors where it is clipped); an
    IndexedSlices' values, its indices kept."""
    return _on_values(t, lambda v: _clip_by_value(v, clip_value_min, clip_value_max, name))


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t), clip_norm)``, the L2 norm taken over ``axes`` (None:
    all), with TF 1.15's safe square root (a zero norm gives a zero gradient, not NaN); an
    IndexedSlices' values, its indices kept (TF's)."""
    return _on_values(t, lambda v: _clip_by_norm(v, clip_norm, axes, name))


def _clip_by_norm(t, clip_norm, axes, name) -> Symbol:
    t = _float_input(t, "clip_by_norm")
    with current_context().name_scope(name or "clip_by_norm") as scope:
        clip_norm = _norm_like(clip_norm, t)
        l2sum = reduce_sum(t * t, axes, keepdims=True)
        positive = create_op("greater", l2sum, _like(0.0, l2sum))
        l2norm = where(positive, sqrt(where(positive, l2sum, ones_like(l2sum))), l2sum)
        return identity(t * clip_norm / maximum(l2norm, clip_norm), name=scope)


def clip_by_average_norm(t, clip_norm, name=None) -> Symbol:
    """``t * clip_norm / max(l2norm(t) / size(t), clip_norm)`` (TF 1.x)."""
    t = _float_input(t, "clip_by_average_norm")
    clip_norm = _norm_like(clip_norm, t)
    inverse_norm = rsqrt(reduce_sum(t * t))
    size = cast(array_size(t), t.dtype)
    scale = minimum(inverse_norm * size, 1.0 / clip_norm) * clip_norm
    return identity(t * scale, name=name or "clip_by_average_norm")


def _tensor_list(t_list, function) -> list:
    if isinstance(t_list, (str, bytes, Symbol)) or not isinstance(t_list, (list, tuple)):
        raise TypeError(f"{function}: t_list should be a sequence of tensors, got {t_list!r}")
    return list(t_list)


def global_norm(t_list, name=None) -> Symbol:
    """``sqrt(sum of sum(t ** 2) over the tensors)``; None entries are skipped, an
    IndexedSlices counts its values (TF's)."""
    values = [_tensor(t.values if isinstance(t, IndexedSlices) else t)
              for t in _tensor_list(t_list, "global_norm") if t is not None]
    if not values:
        raise ValueError("global_norm: t_list holds no tensor")
    with current_context().name_scope(name or "global_norm"):  # TF's: global_norm/global_norm
        half_squares = [reduce_sum(square(v)) * 0.5 for v in values]  # l2_loss, as TF's
        return sqrt(create_op("elemwise_sum", *half_squares, num_args=len(half_squares)) * 2.0,
                    name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``.

    Parameters
    ----------
    t_list : list or tuple
        Tensors (gradients) or IndexedSlices (their values scaled); None entries stay None.
    clip_norm : float or 0-D Symbol
    use_norm : 0-D Symbol, optional
        The global norm to use (computed by :func:`global_norm` when None).

    Returns
    -------
    (list of Symbol or None, Symbol): the clipped tensors and the global norm, TF 1.15's
    ``t * clip_norm * min(1 / norm, 1 / clip_norm)``, NaN everywhere when the norm is inf or
    NaN (as TF).
    """
    t_list = _tensor_list(t_list, "clip_by_global_norm")
    norm = global_norm(t_list) if use_norm is None else _tensor(use_norm)
    clip_norm = _norm_like(clip_norm, norm)
    scale = clip_norm * minimum(1.0 / norm, 1.0 / clip_norm)
    scale = scale + (norm - norm)  # NaN when the norm is not finite, as TF
    prefix = name or "clip_by_global_norm"
    clipped = [None if t is None else _on_values(t, lambda v, i=i: identity(
        _tensor(v) * scale, name=f"{prefix}_{i}")) for i, t in enumerate(t_list)]
    return clipped, norm


# -- confusion matrix ------------------------------------------------------------------------
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=int32,
                     name=None) -> Symbol:
    """``[num_classes, num_classes]`` counts: entry (i, j) sums ``weights`` (1s) over the
    examples with label i and prediction j.

    ``labels`` and ``predictions`` are vectors of class ids (integers; floats are cast to int64,
    as TF); an id outside ``[0, num_classes)`` is an error when the graph runs, as TF's
    asserts.  ``num_classes`` must be an int: TinyFlow fixes shapes when the graph is bound,
    while TF's default (``max(labels, predictions) + 1``) depends on the values.
    """
    if isinstance(num_classes, Symbol) and num_classes.node.kind == "constant":
        num_classes = num_classes.node.attrs["value"][0]
    if num_classes is None or isinstance(num_classes, Symbol):
        raise ValueError("confusion_matrix needs num_classes as an int: TinyFlow fixes shapes "
                         "when the graph is bound, and without it the matrix's size "
                         "(max(labels, predictions) + 1) would depend on the values")
    ids = [_tensor(v) for v in (labels, predictions)]
    ids = [v if v.dtype.is_integer else cast(v, int64) for v in ids]
    dtype = as_dtype(dtype)
    weights = ones_like(ids[0], dtype=dtype) if weights is None else cast(_tensor(weights), dtype)
    return create_op("confusion_matrix", *ids, weights, num_classes=int(num_classes),
                     name=name or "confusion_matrix")


def nextafter(x1, x2, name=None) -> Symbol:
    """TF 1.15's ``tf.math.nextafter``: the next representable float after ``x1`` towards
    ``x2`` (float32 or float64 of one dtype, broadcasting); its gradient goes to x1 alone, as
    TF's (one float's step)."""
    x1, x2 = _tensor(x1), _tensor(x2)
    for label, x in (("x1", x1), ("x2", x2)):
        if x.dtype.name not in ("float32", "float64"):
            raise TypeError(f"Value passed to parameter '{label}' has DataType "
                            f"{x.dtype.name} not in list of allowed values: float64, float32")
    return create_op("next_after", x1, x2, name=name or "NextAfter")

