"""TensorFlow 1.15's functions on the matrices of a tensor's last two axes and on diagonals:
``tf.matrix_band_part``, ``tf.matrix_diag``, ``tf.matrix_diag_part``, ``tf.matrix_set_diag``
(ops of tinyflow/ops/matrix.py), and, composed from them and array ops as TF composes them,
``tf.matrix_transpose``, ``tf.trace``, ``tf.diag`` and ``tf.diag_part``; ``tf.linalg`` has
them as band_part, diag, diag_part, set_diag, transpose, trace, tensor_diag and
tensor_diag_part.  TF 1.15's ``k`` (other diagonals) and ``num_rows`` / ``num_cols`` /
``padding_value`` are not supported: anything but their defaults is a ValueError saying so.
"""
from __future__ import annotations

import numbers

from ..nnvm.symbol import Symbol, create_op
from .api import reduce_sum
from .array_ops import _folded, _tensor, concat, reshape, shape, transpose

__all__ = ["diag", "diag_part", "matrix_band_part", "matrix_diag", "matrix_diag_part",
           "matrix_set_diag", "matrix_transpose", "trace"]


def _main_diagonal(function, k=0, num_rows=-1, num_cols=-1, padding_value=0):
    if k != 0 or num_rows != -1 or num_cols != -1 or padding_value != 0:
        raise ValueError(f"tf.{function}: TinyFlow has the main diagonal only (k=0, the "
                         f"default num_rows, num_cols and padding_value)")


def _bound(value, what):
    if isinstance(value, Symbol):
        folded = _folded(value)
        if folded is None or len(folded) != 1:
            raise TypeError(f"tf.matrix_band_part: {what} must be an integer or a constant "
                            f"scalar tensor in TinyFlow")
        value = folded[0]
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"tf.matrix_band_part: {what} must be an integer, got {value!r}")
    return int(value)


def matrix_band_part(input, num_lower, num_upper, name=None) -> Symbol:
    """``input`` with each matrix (last two axes) zeroed off its band: element (i, j) kept where
    ``i - j <= num_lower`` and ``j - i <= num_upper`` (a negative bound keeps that whole
    triangle: ``matrix_band_part(x, -1, 0)`` is the lower triangle)."""
    return create_op("matrix_band_part", _tensor(input),
                     num_lower=_bound(num_lower, "num_lower"),
                     num_upper=_bound(num_upper, "num_upper"), name=name or "MatrixBandPart")


def matrix_diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0) -> Symbol:
    """Matrices ``[..., N, N]`` with the vectors ``diagonal`` ``[..., N]`` on their diagonals."""
    _main_diagonal("matrix_diag", k, num_rows, num_cols, padding_value)
    return create_op("matrix_diag", _tensor(diagonal), name=name)


def matrix_diag_part(input, name="diag_part", k=0, padding_value=0) -> Symbol:
    """The diagonals ``[..., min(M, N)]`` of the matrices ``input`` ``[..., M, N]``."""
    _main_diagonal("matrix_diag_part", k, padding_value=padding_value)
    return create_op("matrix_diag_part", _tensor(input), name=name)


def matrix_set_diag(input, diagonal, name="set_diag", k=0) -> Symbol:
    """The matrices ``input`` with their diagonals set to ``diagonal``."""
    _main_diagonal("matrix_set_diag", k)
    return create_op("matrix_set_diag", _tensor(input), _tensor(diagonal), name=name)


def matrix_transpose(a, name="matrix_transpose", conjugate=False) -> Symbol:
    """Each matrix of ``a`` (its last two axes) transposed."""
    a = _tensor(a)
    rank = a.get_shape().ndims
    if rank is None or rank < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2, got shape "
                         f"{a.get_shape()}")
    return transpose(a, list(range(rank - 2)) + [rank - 1, rank - 2], name=name)


def trace(x, name=None) -> Symbol:
    """The sum of each matrix's diagonal (last two axes), as TF: the diagonal summed."""
    return reduce_sum(matrix_diag_part(x), [-1], name=name or "Trace")


def diag(diagonal, name=None) -> Symbol:
    """The tensor of rank 2k holding ``diagonal`` (rank k) where its index repeats
    (``out[i, j, i, j] = diagonal[i, j]``), zeros elsewhere: the flattened diagonal's matrix,
    reshaped."""
    diagonal = _tensor(diagonal)
    square = matrix_diag(reshape(diagonal, [-1]))
    dims = shape(diagonal)
    return reshape(square, concat([dims, dims], 0), name=name or "Diag")


def diag_part(input, name=None) -> Symbol:
    """The diagonal of a tensor of rank 2k whose first k dims are its last k: ``out[i, j] =
    input[i, j, i, j]``; the inverse of :func:`diag`."""
    input = _tensor(input)
    known = input.get_shape()
    if known.ndims is None or known.ndims % 2:
        raise ValueError(f"tf.diag_part: the input's rank must be even and known, got shape "
                         f"{known}")
    half = known.as_list()[:known.ndims // 2]
    if None in half or half != known.as_list()[known.ndims // 2:]:
        raise ValueError(f"tf.diag_part: the input's shape must be known and its first half "
                         f"equal its second, got {known}")
    count = 1
    for d in half:
        count *= d
    flat = matrix_diag_part(reshape(input, [count, count]))
    return reshape(flat, half, name=name or "DiagPart")
