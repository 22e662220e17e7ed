"""TF-1's ``tf.norm`` and ``tf.einsum`` (also ``tf.linalg.norm`` / ``tf.linalg.einsum``).

``norm`` is composed from abs, pow, sums and maxima exactly as TensorFlow 1.15's
``linalg_ops.norm`` composes it, so its gradient is theirs (NaN at a zero vector for the
euclidean norm, as TF's).  ``einsum`` is one op (``tinyflow/ops/matrix.py``) for the equations TF
1.15's ``special_math_ops.einsum`` takes; an equation it refuses is a ValueError here too.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..nnvm.symbol import Symbol
from .api import _tensor, reduce_max, reduce_sum, sqrt
from .api import abs as _abs
from .api import pow as _pow
from .array_ops import squeeze

__all__ = ["norm"]

_VECTOR_ORDS = ("euclidean", 1, 2, np.inf)
_MATRIX_ORDS = ("euclidean", "fro", 1, 2, np.inf)


def _norm_axis(axis):
    """``(axis as a tuple or None, is a matrix norm)``, checked as TF 1.15 checks it."""
    bad = ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got "
                     f"{axis}")
    if isinstance(axis, (tuple, list)) and len(axis) == 2:
        if not all(isinstance(a, numbers.Integral) for a in axis) or axis[0] == axis[1]:
            raise bad
        return tuple(int(a) for a in axis), True
    if axis is not None and not isinstance(axis, numbers.Integral):
        raise bad
    return (None if axis is None else (int(axis),)), False


def _check_ord(ord, matrix):
    if matrix:
        if ord not in _MATRIX_ORDS:
            raise ValueError(f"'ord' must be a supported matrix norm in {list(_MATRIX_ORDS)}, "
                             f"got {ord}")
        if ord == 2:  # TF computes the largest singular value; TinyFlow has no SVD
            raise ValueError("tf.norm: the matrix 2-norm (ord=2 over two axes) needs an SVD, "
                             "which TinyFlow does not support")
        return
    positive = isinstance(ord, numbers.Real) and not isinstance(ord, bool) and ord > 0
    if not positive and ord not in _VECTOR_ORDS:
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None,
         keep_dims=None) -> Symbol:
    """TF 1.15's ``tf.norm``: the vector norm over ``axis`` (None: all of ``tensor`` as one
    vector; an integer) or the matrix norm over two axes.

    Parameters
    ----------
    tensor : tensor
        Floats.
    ord : str or number
        Vectors: ``"euclidean"`` (= 2), 1, ``np.inf`` or any p > 0.  Matrices: ``"fro"`` /
        ``"euclidean"``, 1 (the largest column sum of |x|), ``np.inf`` (the largest row sum).
    axis : None, int or a pair of distinct ints
    keepdims : bool
        Keep the reduced axes as size 1 (``keep_dims``: TF's older name).
    name : str, optional

    Raises
    ------
    ValueError
        For an ``ord`` or ``axis`` TF 1.15 refuses, and for the matrix 2-norm (an SVD).
    """
    keepdims = keep_dims if keepdims is None else keepdims
    axis, matrix = _norm_axis(axis)
    _check_ord(ord, matrix)
    x = _tensor(tensor)
    if ord in ("fro", "euclidean", 2):
        result = sqrt(reduce_sum(x * x, axis, keepdims=True))
    elif ord == 1:
        result = reduce_sum(_abs(x), None if axis is None else axis[0], keepdims=True)
        if matrix:
            result = reduce_max(result, axis[-1], keepdims=True)
    elif ord == np.inf:
        result = _abs(x)
        if matrix:
            result = reduce_sum(result, axis[1], keepdims=True)
        result = reduce_max(result, None if axis is None else axis[0], keepdims=True)
    else:  # a p-norm, p > 0
        result = _pow(reduce_sum(_pow(_abs(x), float(ord)), axis, keepdims=True), 1.0 / ord)
    return result if keepdims else squeeze(result, axis, name=name)
