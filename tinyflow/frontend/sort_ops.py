"""TensorFlow 1.15's sorting and counting functions: ``tf.sort``, ``tf.argsort``, ``tf.unique``,
``tf.unique_with_counts``, ``tf.setdiff1d`` and ``tf.bincount`` (ops of
tinyflow/ops/sorting.py).  The outputs of unique, setdiff1d and bincount have as many elements as
the data decides, a shape known once they ran (ops reading them are bound then:
docs/control_flow.md); like TF 1.15's, they have no gradient but bincount's weights'.
"""
from __future__ import annotations

import collections
import numbers

from ..nnvm.symbol import Symbol, create_op
from ..nnvm.tensor_shape import TensorShape
from . import api
from .array_ops import _tensor, ones_like, reshape
from .dtypes import as_dtype, int32
from .framework import name_scope
from .math_ops import floor
from .segment_ops import unsorted_segment_sum

__all__ = ["argsort", "bincount", "histogram_fixed_width", "histogram_fixed_width_bins",
           "setdiff1d", "sort", "unique",
           "unique_with_counts"]

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])
ListDiff = collections.namedtuple("ListDiff", ["out", "idx"])


def _sorted(values, axis, direction, name, function):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"tf.{function}: direction must be 'ASCENDING' or 'DESCENDING', got "
                         f"{direction!r}")
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise TypeError(f"tf.{function}: axis must be a Python integer in TinyFlow, got {axis!r}")
    return create_op("sort", _tensor(values), axis=int(axis),
                     descending=direction == "DESCENDING", name=name or function)


def sort(values, axis=-1, direction="ASCENDING", name=None) -> Symbol:
    """``values`` sorted along ``axis``, ``'ASCENDING'`` or ``'DESCENDING'``; the gradient goes
    back to where each value came from."""
    return _sorted(values, axis, direction, name, "sort")[0]


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None) -> Symbol:
    """The int32 indices that sort ``values`` along ``axis``; equal values keep their order
    whatever ``stable`` says (TF's sort gives that too)."""
    return _sorted(values, axis, direction, name, "argsort")[1]


def _declared(symbol, shape):
    """What is known of a run-time-shaped output before it runs, as TF's static shape."""
    symbol.graph.declared_shapes[symbol.outputs[0]] = TensorShape(shape)
    return symbol


def unique_with_counts(x, out_idx=int32, name=None) -> UniqueWithCounts:
    """``(y, idx, count)``: ``x``'s (a vector's) distinct elements in the order they first
    occur, each element's position in ``y`` (so ``x == tf.gather(y, idx)``), and how often
    each occurs."""
    result = create_op("unique", _tensor(x), out_idx=as_dtype(out_idx).name,
                       name=name or "UniqueWithCounts")
    y, idx, count = (result[i] for i in range(3))
    return UniqueWithCounts(_declared(y, [None]), idx, _declared(count, [None]))


def unique(x, out_idx=int32, name=None) -> Unique:
    """``(y, idx)``: ``x``'s (a vector's) distinct elements in the order they first occur, and
    each element's position in ``y``."""
    y, idx, _ = unique_with_counts(x, out_idx, name=name or "Unique")
    return Unique(y, idx)


def setdiff1d(x, y, index_dtype=int32, name=None) -> ListDiff:
    """``(out, idx)``: the elements of the vector ``x`` not in ``y``, in x's order (repeats
    kept), and their positions in ``x``."""
    result = create_op("setdiff1d", _tensor(x), _tensor(y),
                       index_dtype=as_dtype(index_dtype).name, name=name or "ListDiff")
    return ListDiff(_declared(result[0], [None]), _declared(result[1], [None]))


def _length(value, what):
    if value is None:
        return None
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"tf.bincount: {what} must be a Python integer in TinyFlow, got "
                        f"{value!r}")
    return int(value)


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=int32, name=None) -> Symbol:
    """How often each value 0, 1, ... occurs in the int32 ``arr`` (any shape): ``max(arr) + 1``
    bins (none for an empty arr), at least ``minlength``, at most ``maxlength``.  With
    ``weights`` (arr's shape), each bin sums the weights of its values, in their dtype.
    Values outside the bins are left out (with weights: negative ones; one past
    ``maxlength`` is an InvalidArgumentError, as TF 1.15's unsorted_segment_sum, which also
    gives the weights their gradient: each weight's bin's)."""
    inputs = [_tensor(arr)] + ([] if weights is None else [_tensor(weights)])
    result = create_op("bincount", *inputs, weighted=weights is not None,
                       minlength=_length(minlength, "minlength"),
                       maxlength=_length(maxlength, "maxlength"), dtype=as_dtype(dtype).name,
                       name=name or "bincount")
    return _declared(result, [None])


def histogram_fixed_width(values, value_range, nbins=100, dtype=int32, name=None) -> Symbol:
    """TensorFlow 1.15's histogram of ``values`` (any shape) in ``nbins`` equal bins spanning
    ``value_range`` ``[lo, hi]``: a value's bin is ``(max(v, lo) - lo) / ((hi - lo) / nbins)``
    (in float64, as TF's kernel) rounded down, at most ``nbins - 1``: those below ``lo`` count
    in the first bin, those at or above ``hi`` in the last, NaN in the first (TF's CPU
    kernel's).  ``nbins`` is a Python int; the counts, shape ``[nbins]``, are ``dtype`` (int32
    or int64)."""
    if not isinstance(nbins, numbers.Integral) or isinstance(nbins, bool) or nbins < 1:
        raise ValueError(f"histogram_fixed_width: nbins must be a positive int, got {nbins!r}")
    dtype = as_dtype(dtype)
    if dtype.name not in ("int32", "int64"):
        raise TypeError(f"histogram_fixed_width: dtype must be int32 or int64, got {dtype.name}")
    with name_scope(name, "histogram_fixed_width"):
        values, value_range = (api.cast(_tensor(v), "float64") for v in (values, value_range))
        if value_range.get_shape().as_list() not in ([2], None):
            raise ValueError(f"histogram_fixed_width: value_range must be [lo, hi], got shape "
                             f"{value_range.get_shape()}")
        low, step = value_range[0], (value_range[1] - value_range[0]) / float(nbins)
        scaled = (api.maximum(values, low) - low) / step
        scaled = api.where(api.equal(scaled, scaled), scaled, 0.0)  # NaN: the first bin
        bins = api.cast(api.minimum(scaled, float(nbins - 1)), dtype.name)
        bins = reshape(bins, [-1])
        return unsorted_segment_sum(ones_like(bins), bins, int(nbins))


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=int32, name=None) -> Symbol:
    """The bin of each of ``values`` (its shape, int32) among ``nbins`` equal bins spanning
    ``value_range`` ``[lo, hi]``, as TensorFlow 1.15's: ``floor(nbins * (v - lo) / (hi -
    lo))`` clipped to ``[0, nbins - 1]``, composed of the same ops (so integer values are its
    TypeError: their quotient is float64), ``dtype`` ignored as TF's is."""
    del dtype  # TF 1.15 ignores it: the bins are int32
    with name_scope(name, "histogram_fixed_width_bins"):
        values, value_range = _tensor(values), _tensor(value_range)  # elementwise: no reshape
        nbins_float = api.cast(nbins if isinstance(nbins, Symbol) else api.constant(
            nbins, dtype="int32"), values.dtype)
        scaled = api.truediv(values - value_range[0], value_range[1] - value_range[0])
        indices = floor(nbins_float * scaled)
        indices = api.minimum(api.maximum(indices, api.cast(0, values.dtype)), nbins_float - 1)
        return api.cast(indices, "int32")
