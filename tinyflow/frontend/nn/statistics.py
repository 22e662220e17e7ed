"""TF 1.15's ``tf.nn`` statistics beyond ``moments``: ``sufficient_statistics`` and
``normalize_moments`` (moments from sums, as a streaming mean/variance keeps them),
``weighted_moments`` (frequency-weighted mean and variance), ``zero_fraction``, and ``swish``
(``x * sigmoid(x)``), each composed of ops as TensorFlow's Python composes them."""
from __future__ import annotations

import numbers

from ...nnvm.symbol import Symbol, current_context
from ..api import cast, equal, reduce_mean, reduce_prod, reduce_sum, sigmoid, square, stop_gradient
from ..array_ops import gather, shape, squeeze, zeros_like
from ..dtypes import float32
from ..math_ops import squared_difference

__all__ = ["normalize_moments", "silu", "sufficient_statistics", "swish", "weighted_moments",
           "zero_fraction"]


def _axes(axes) -> list:
    return [int(axes)] if isinstance(axes, numbers.Integral) else [int(a) for a in axes]


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """``(count, mean_ss, variance_ss, shift)``: the number of elements reduced (in x's dtype),
    the sums of ``x - shift`` and of its squares over ``axes`` (``shift`` None: of x)."""
    keep, axes = bool(keepdims if keepdims is not None else keep_dims), _axes(axes)
    with current_context().name_scope(name or "sufficient_statistics"):
        static = x.get_shape()
        if static.ndims is not None and all(static[a].value is not None for a in axes):
            size = 1
            for a in axes:
                size *= static[a].value
            count = cast(size, x.dtype, name="count")
        else:
            count = cast(reduce_prod(gather(shape(x), axes)), x.dtype, name="count")
        shifted = x if shift is None else x - shift
        mean_ss = reduce_sum(shifted, axes, keepdims=keep, name="mean_ss")
        variance_ss = reduce_sum(square(shifted), axes, keepdims=keep, name="var_ss")
    return count, mean_ss, variance_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """``(mean, variance)`` from :func:`sufficient_statistics`'s sums."""
    with current_context().name_scope(name or "normalize"):
        divisor = 1.0 / counts
        shifted_mean = mean_ss * divisor
        mean = shifted_mean if shift is None else shifted_mean + shift
        variance = variance_ss * divisor - square(shifted_mean)
    return mean, variance


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """``(mean, variance)`` of ``x`` over ``axes``, each element counted
    ``frequency_weights`` times (broadcast against x)."""
    keep, axes = bool(keepdims if keepdims is not None else keep_dims), _axes(axes)
    with current_context().name_scope(name or "weighted_moments"):
        weights = frequency_weights if isinstance(frequency_weights, Symbol) else cast(
            frequency_weights, x.dtype)
        weighted_sum = reduce_sum(weights * x, axes, keepdims=True)
        total = reduce_sum(weights + zeros_like(x), axes, keepdims=True)
        divisor = 1.0 / total
        mean = weighted_sum * divisor
        spread = reduce_sum(weights * squared_difference(x, stop_gradient(mean)), axes,
                            keepdims=True)
        variance = spread * divisor
        if not keep:
            mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    return mean, variance


def zero_fraction(value, name=None):
    """The fraction of ``value``'s elements that are zero (a float32 scalar)."""
    with current_context().name_scope(name or "zero_fraction"):
        return reduce_mean(cast(equal(value, zeros_like(value)), float32), name="fraction")


def swish(features, name=None):
    """``features * sigmoid(features)`` (TensorFlow 1.15's ``tf.nn.swish``)."""
    with current_context().name_scope(name or "swish"):
        return features * sigmoid(features)


silu = swish  # TF's later name for swish, kept by tf.compat.v1.nn
