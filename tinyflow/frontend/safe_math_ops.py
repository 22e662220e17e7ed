"""TensorFlow 1.15's division and multiplication that give 0 instead of NaN (``div_no_nan``,
``multiply_no_nan``, ``reciprocal_no_nan``), its C-style integer division (``truncatediv``,
``truncatemod``, ``realdiv``), the inverse hyperbolic functions, ``saturate_cast``,
``polyval`` and the monotonicity tests: each composed of existing ops, so gradients come from
the primitives' rules (``where`` sends the untaken side zeros)."""
from __future__ import annotations

import numpy as np

from ..nnvm.symbol import Symbol
from .api import (
    _operands,
    _tensor,
    abs,
    cast,
    divide,
    equal,
    floordiv,
    greater,
    greater_equal,
    identity,
    log,
    log1p,
    maximum,
    minimum,
    mod,
    multiply,
    reduce_all,
    sign,
    sqrt,
    where,
)
from .array_ops import ones_like, reshape, zeros_like
from .dtypes import as_dtype

__all__ = ["acosh", "asinh", "atanh", "div_no_nan", "divide_no_nan", "is_non_decreasing",
           "is_strictly_increasing", "multiply_no_nan", "polyval", "realdiv",
           "reciprocal_no_nan", "saturate_cast", "truncatediv", "truncatemod", "xdivy", "xlog1py",
           "xlogy"]


def _floats(x, y, function):
    x, y = _operands(x, y)
    if not x.dtype.is_floating:
        raise TypeError(f"tf.{function} takes float tensors, got {x.dtype.name}")
    return x, y


def div_no_nan(x, y, name=None) -> Symbol:
    """``x / y``, and 0 where ``y`` is 0 (TensorFlow 1.15's ``tf.div_no_nan``; floats)."""
    x, y = _floats(x, y, "div_no_nan")
    zero = equal(y, 0)
    return where(zero, zeros_like(x * y), x / where(zero, ones_like(y), y), name=name)


divide_no_nan = div_no_nan


def reciprocal_no_nan(x, name=None) -> Symbol:
    """``1 / x``, and 0 where ``x`` is 0 (``tf.math.reciprocal_no_nan``)."""
    x = _tensor(x)
    return div_no_nan(ones_like(x), x, name=name)


def multiply_no_nan(x, y, name=None) -> Symbol:
    """``x * y``, and 0 where ``y`` is 0 even when ``x`` is infinite or NaN
    (``tf.math.multiply_no_nan``; floats)."""
    x, y = _floats(x, y, "math.multiply_no_nan")
    product = x * y
    return where(equal(y * ones_like(product), 0), zeros_like(product), product, name=name)


def xdivy(x, y, name=None) -> Symbol:
    """``x / y``, and 0 where ``x`` is 0 (``tf.math.xdivy``; floats): y's zeros there give no
    NaN, nor a NaN gradient."""
    x, y = _floats(x, y, "math.xdivy")
    zero = equal(x * ones_like(y), 0)
    return where(zero, zeros_like(x * y), x / where(zero, ones_like(x * y), y), name=name)


def xlogy(x, y, name=None) -> Symbol:
    """``x * log(y)``, and 0 where ``x`` is 0 (``tf.math.xlogy``; floats)."""
    x, y = _floats(x, y, "math.xlogy")
    zero = equal(x * ones_like(y), 0)
    return where(zero, zeros_like(x * y), x * log(where(zero, ones_like(x * y), y)), name=name)


def xlog1py(x, y, name=None) -> Symbol:
    """``x * log1p(y)``, and 0 where ``x`` is 0 (``tf.math.xlog1py``; floats)."""
    x, y = _floats(x, y, "math.xlog1py")
    zero = equal(x * ones_like(y), 0)
    return where(zero, zeros_like(x * y), x * log1p(where(zero, zeros_like(x * y), y)),
                 name=name)


def truncatediv(x, y, name=None) -> Symbol:
    """Integer ``x / y`` rounded toward zero, as C (``tf.truncatediv``: ``-7 / 5 = -1``)."""
    x, y = _operands(x, y)
    if not x.dtype.is_integer:
        raise TypeError(f"tf.truncatediv takes integer tensors, got {x.dtype.name}")
    return multiply(sign(x) * sign(y), floordiv(abs(x), abs(y)), name=name)


def truncatemod(x, y, name=None) -> Symbol:
    """The remainder of :func:`truncatediv`, with the sign of ``x`` (C's ``fmod``;
    ``tf.truncatemod``)."""
    x, y = _operands(x, y)
    return multiply(sign(x), mod(abs(x), abs(y)), name=name)


def realdiv(x, y, name=None) -> Symbol:
    """``x / y`` (TensorFlow's RealDiv): floats divided, integers as :func:`truncatediv`."""
    x, y = _operands(x, y)
    return (truncatediv if x.dtype.is_integer else divide)(x, y, name=name or "RealDiv")


def acosh(x, name=None) -> Symbol:
    """``log(x + sqrt(x**2 - 1))``, the inverse hyperbolic cosine (floats, x >= 1)."""
    x = _tensor(x)
    return log(x + sqrt(x * x - 1), name=name)


def asinh(x, name=None) -> Symbol:
    """The inverse hyperbolic sine, ``sign(x) log(|x| + sqrt(x**2 + 1))`` (exact for x < 0)."""
    x = _tensor(x)
    magnitude = abs(x)
    return multiply(sign(x), log(magnitude + sqrt(magnitude * magnitude + 1)), name=name)


def atanh(x, name=None) -> Symbol:
    """The inverse hyperbolic tangent, ``(log1p(x) - log1p(-x)) / 2`` (floats, |x| < 1)."""
    x = _tensor(x)
    return multiply(log1p(x) - log1p(-x), 0.5, name=name)


def saturate_cast(value, dtype, name=None) -> Symbol:
    """``value`` clipped to the range of ``dtype``, then cast (TensorFlow 1.15's
    ``tf.saturate_cast``, which clips only where ``dtype``'s range is the narrower)."""
    value, dtype = _tensor(value), as_dtype(dtype)
    source, target = (_limits(d) for d in (value.dtype, dtype))
    if source[0] < target[0]:
        value = maximum(value, np.asarray(target[0]).astype(value.dtype.as_numpy_dtype))
    if source[1] > target[1]:
        value = minimum(value, np.asarray(target[1]).astype(value.dtype.as_numpy_dtype))
    return cast(value, dtype, name=name)


def _limits(dtype) -> tuple:
    if dtype.is_bool:
        return 0, 1
    info = np.finfo if dtype.is_floating else np.iinfo
    found = info(dtype.as_numpy_dtype)
    return found.min, found.max


def polyval(coeffs, x, name=None) -> Symbol:
    """``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by Horner's rule (``tf.math.polyval``);
    ``coeffs`` a list of tensors or numbers; no coefficients give zeros like ``x``."""
    if not isinstance(coeffs, list):
        raise ValueError(  # noqa: TRY004 - TF's class
            f"Argument coeffs must be list type found {type(coeffs)}.")
    x = _tensor(x)
    if not coeffs:
        return zeros_like(x, name=name)
    coeffs = [_operands(c, x)[0] for c in coeffs]  # a number takes x's dtype
    result = coeffs[0]
    for coefficient in coeffs[1:]:
        result = coefficient + result * x
    return identity(result, name=name)


def _monotonic(x, compare, name) -> Symbol:
    """``compare(x[i + 1], x[i])`` for all i of x flattened (True for fewer than 2)."""
    x = _tensor(x)
    if x.dtype.is_bool or x.dtype.name == "string":
        raise TypeError(f"Expected x to be numeric, got {x.dtype.name}")
    flat = reshape(x, [-1])
    return reduce_all(compare(flat[1:], flat[:-1]), name=name)


def is_non_decreasing(x, name=None) -> Symbol:
    """True when x (flattened) never decreases (``tf.math.is_non_decreasing``)."""
    return _monotonic(x, greater_equal, name)


def is_strictly_increasing(x, name=None) -> Symbol:
    """True when x (flattened) always increases (``tf.math.is_strictly_increasing``)."""
    return _monotonic(x, greater, name)
