"""TensorFlow 1.15's small framework functions that library code calls on its way:
``tf.is_tensor``, ``tf.get_static_value``, ``tf.dimension_value`` / ``dimension_at_index``,
``tf.broadcast_static_shape`` / ``broadcast_dynamic_shape``,
``tf.convert_to_tensor_or_indexed_slices``, ``tf.train.replica_device_setter`` (a placement
function; every op runs on the session's device anyway) and the version switches TF-1 programs
call."""
from __future__ import annotations

import builtins

import numpy as np

from ..nnvm.passes.fold_shapes import NotFoldable, fold_value
from ..nnvm.symbol import Symbol, current_context, static_shape
from ..nnvm.tensor_shape import _STAND_INS, Dimension, TensorShape
from .api import cast, constant, equal, less, logical_or, maximum, reduce_all, reduce_max, where
from .array_ops import (
    _fold_ints,
    _folded,
    _known_shape,
    concat,
    expand_dims,
    gather_dense,
    ones,
    reshape,
    shape,
    stack,
)
from .array_ops import linspace as _static_linspace
from .array_ops import range as _static_range
from .array_ops import sequence_mask as _static_sequence_mask
from .array_ops import slice as _static_slice
from .control_flow_ops import Assert
from .dtypes import as_dtype, int32
from .indexed_slices import IndexedSlices
from .math_ops import convert_to_tensor, cumsum

__all__ = ["broadcast_dynamic_shape", "broadcast_static_shape",
           "convert_to_tensor_or_indexed_slices", "dimension_at_index", "dimension_value",
           "disable_v2_tensorshape", "executing_eagerly_outside_functions", "get_static_value",
           "is_symbolic_tensor", "is_tensor", "lin_space", "linspace", "range", "sequence_mask",
           "slice"]


def is_tensor(x) -> bool:
    """Whether ``x`` is a tensor (or variable) of a graph."""
    return isinstance(x, Symbol) and not x.is_operation


is_symbolic_tensor = is_tensor


def get_static_value(tensor, partial=False):
    """The value of ``tensor`` computed now from constants and the shapes known (numpy), or
    None when it needs a run; a non-tensor is returned as a numpy array."""
    del partial
    if not isinstance(tensor, Symbol):
        return np.asarray(tensor)
    try:
        value = fold_value(tensor.outputs[0], _known_shape)
    except (NotFoldable, TypeError, ValueError):
        return None
    return np.asarray(value, dtype=tensor.dtype.as_numpy_dtype)


def dimension_value(dimension):
    """A ``Dimension``'s int (None when unknown); an int as it is."""
    return dimension.value if isinstance(dimension, Dimension) else dimension


def dimension_at_index(shape, index) -> Dimension:
    """Dimension ``index`` of ``shape`` (unknown for a shape of unknown rank)."""
    shape = TensorShape(shape)
    return Dimension(None) if shape.ndims is None else shape.dims[index]


def broadcast_static_shape(shape_x, shape_y) -> TensorShape:
    """The static shape two shapes broadcast to; ValueError when they cannot."""
    x, y = TensorShape(shape_x), TensorShape(shape_y)
    if x.ndims is None or y.ndims is None:
        return TensorShape(None)
    dims = []
    for a, b in zip([1] * (y.ndims - x.ndims) + x.as_list(), [1] * (x.ndims - y.ndims)
                    + y.as_list()):
        if a is not None and b is not None and 1 not in (a, b) and a != b:
            raise ValueError(f"Incompatible shapes for broadcasting: {x} and {y}")
        dims.append(b if a == 1 else a if b == 1 else a if a is not None else b)
    return TensorShape(dims)


def broadcast_dynamic_shape(shape_x, shape_y) -> Symbol:
    """The shape (an int32 vector) two shape vectors broadcast to, when the graph runs."""
    x, y = convert_to_tensor(shape_x), convert_to_tensor(shape_y)
    nx, ny = (t.get_shape().as_list()[0] for t in (x, y))
    if nx is None or ny is None:
        raise ValueError("broadcast_dynamic_shape needs shape vectors of known length")
    ones = [1] * abs(nx - ny)
    x = concat([ones, x], 0) if nx < ny else x
    y = concat([ones, y], 0) if ny < nx else y
    fits = reduce_all(logical_or(logical_or(equal(x, y), equal(x, 1)), equal(y, 1)))
    with current_context().control_dependencies([Assert(fits, ["Incompatible shapes:", x, y])]):
        return where(equal(x, 1), y, x)


def executing_eagerly_outside_functions() -> bool:
    """False: TinyFlow builds graphs."""
    return False


def disable_v2_tensorshape() -> None:
    """Nothing to do: TinyFlow's ``TensorShape`` holds ``Dimension`` objects, TF 1.x's."""


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    """``value`` as it is when an IndexedSlices, else ``tf.convert_to_tensor(value)``."""
    if isinstance(value, IndexedSlices):
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker",
                          merge_devices=True, cluster=None, ps_ops=None, ps_strategy=None):
    """TF's placement function for parameter servers (None without ``ps_tasks`` or a
    ``cluster``, as TF's): ``with tf.device(tf.train.replica_device_setter(...)):`` is
    accepted, and every op runs on the session's device."""
    del merge_devices, ps_ops, ps_strategy
    if cluster is None and not ps_tasks:
        return None
    return lambda op: ps_device if getattr(op, "type", None) in ("Variable", "VariableV2") \
        else worker_device


def sequence_mask(lengths, maxlen=None, dtype=bool, name=None) -> Symbol:
    """``tf.sequence_mask``: ``mask[..., j] = j < lengths[...]``, of shape ``lengths.shape +
    [maxlen]`` (None: ``max(lengths)``, as TF 1.15).  Known when the graph is built:
    :func:`tinyflow.frontend.array_ops.sequence_mask`; else the row ``0 .. maxlen - 1`` is a
    :func:`range` whose length is computed when the graph runs (fed lengths)."""
    lengths = lengths if isinstance(lengths, Symbol) else constant(lengths)
    if maxlen is None and _folded(lengths) is None:
        maxlen = reduce_max(lengths)
    if not isinstance(maxlen, Symbol) or _folded(maxlen) is not None:
        return _static_sequence_mask(lengths, maxlen, dtype, name)
    if maxlen.get_shape().ndims not in (None, 0):
        raise ValueError(f"sequence_mask: maxlen must be a scalar, got {maxlen.name} of shape "
                         f"{maxlen.get_shape()}")
    with current_context().name_scope(name or "SequenceMask"):
        columns = range(cast(maxlen, int32))
        mask = less(cast(columns, lengths.dtype), expand_dims(lengths, -1))
        mask = mask if as_dtype(dtype) == as_dtype(bool) else cast(mask, dtype)
        mask.set_shape(lengths.get_shape().concatenate([_partly_static(maxlen)]))
        return mask


def _partly_static(value: Symbol):
    """The int ``value`` when the shapes known now give it whatever their unknown sizes
    (``tf.shape(x)[1]`` of an x of shape [None, 6]: 6), else None: folded with each stand-in
    for an unknown size, as static shapes are (nnvm/symbol.py)."""
    folded = []
    for stand_in in _STAND_INS:
        def shape_of(entry, stand_in=stand_in):
            known = static_shape(entry)
            return None if known.ndims is None else tuple(
                stand_in if d is None else d for d in known.as_list())
        try:
            folded.append(np.asarray(fold_value(value.outputs[0], shape_of)).tolist())
        except NotFoldable:
            return None
    return folded[0] if len(set(map(str, folded))) == 1 else None


def range(start, limit=None, delta=1, dtype=None, name="range") -> Symbol:
    """``tf.range``: Python numbers (:func:`tinyflow.frontend.array_ops.range`), or an int
    tensor ``limit`` known when the graph is bound (``tf.range(tf.shape(x)[0])``, the batch's
    indices) with int ``start`` and ``delta``: ``start + delta * k`` for k below the count,
    computed then; a limit on the wrong side of start fails the run, as TF's."""
    if limit is None:
        start, limit = 0, start
    if isinstance(limit, Symbol) and limit.get_shape().ndims in (0, None):
        known = _folded(limit)
        limit = known[0] if known is not None and len(known) == 1 else limit
    if not isinstance(limit, Symbol) or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (start, delta)):
        return _static_range(start, limit, delta, dtype, name)
    start, delta = int(start), int(delta)
    if delta == 0:
        raise ValueError("range requires delta != 0")
    with current_context().name_scope(name):
        # the count from constants (their values fold when the graph is bound)
        limit = limit if limit.dtype == int32 else cast(limit, int32)
        first = constant(start, int32)
        span = limit - first if delta > 0 else first - limit
        count = span if abs(delta) == 1 else (
            span + constant(abs(delta) - 1, int32)) // constant(abs(delta), int32)
        told = f"range: limit on the wrong side of start {start} for delta {delta}: limit"
        check = Assert(count >= 0, [told, limit])
        with current_context().control_dependencies([check]):
            steps = cumsum(ones(stack([maximum(count, constant(0, int32))]), dtype=int32)) - 1
        values = steps * delta + start
        return values if dtype is None or as_dtype(dtype) == int32 else cast(values, dtype)


def linspace(start, stop, num, name=None) -> Symbol:
    """``tf.linspace``: :func:`tinyflow.frontend.array_ops.linspace`, or with an int tensor
    ``num`` known only when the graph runs, TF's LinSpace computed then (``start + i * (stop -
    start) / (num - 1)``, the last exactly ``stop``; ``num`` <= 0 fails the run)."""
    if not isinstance(num, Symbol) or _folded(num) is not None:
        return _static_linspace(start, stop, num, name)
    start, stop = convert_to_tensor(start), convert_to_tensor(stop)
    if start.dtype != stop.dtype or not start.dtype.is_floating:
        raise TypeError(f"linspace: start and stop must be float tensors of one dtype, got "
                        f"{start.dtype.name} and {stop.dtype.name}")
    with current_context().name_scope(name or "LinSpace"):
        count = cast(num, int32)
        with current_context().control_dependencies([Assert(count > 0, [
                "linspace: Requires num > 0:", count])]):
            inner = cast(range(count - 1), start.dtype)
        step = (stop - start) / cast(maximum(count - 1, 1), start.dtype)
        return concat([start + step * inner, reshape(where(count > 1, stop, start), [1])], 0)


lin_space = linspace


def slice(input_, begin, size, name=None) -> Symbol:
    """``tf.slice``: :func:`tinyflow.frontend.array_ops.slice`, or with sizes known only when
    the graph runs (a fed count; -1 beside a begin known only then): each axis gathered at
    ``begin[d] + range(size[d])``, -1 to the axis' end (a block outside the input fails the
    run, gather's error)."""
    input_, sizes = convert_to_tensor(input_), _fold_ints(size)
    if not isinstance(sizes, Symbol) and (-1 not in sizes or not isinstance(
            _fold_ints(begin), Symbol)):
        return _static_slice(input_, begin, size, name)
    rank = input_.get_shape().ndims
    if rank is None:
        raise ValueError(f"tf.slice of {input_.name}: its rank must be known")
    with current_context().name_scope(name or "Slice"):
        begin, sizes, dims = _int_vector(begin), _int_vector(size), shape(input_)
        known = []  # the sizes known now, as TF's static shape
        for axis in builtins.range(rank):
            count = where(sizes[axis] < 0, dims[axis] - begin[axis], sizes[axis])
            input_ = gather_dense(input_, begin[axis] + range(count), axis=axis)
            given = size[axis] if isinstance(size, (list, tuple)) else sizes[axis]
            known.append(_partly_static(given) if isinstance(given, Symbol) else int(given))
        input_.set_shape([k if k is not None and k >= 0 else None for k in known])
        return input_


def _int_vector(values) -> Symbol:
    values = _fold_ints(values)
    return cast(values, int32) if isinstance(values, Symbol) else constant(list(values), int32)
