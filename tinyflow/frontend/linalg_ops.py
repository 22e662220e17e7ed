"""TF-1's ``tf.norm`` and ``tf.einsum`` (also ``tf.linalg.norm`` / ``tf.linalg.einsum``).

``norm`` is composed from abs, pow, sums and maxima exactly as TensorFlow 1.15's
``linalg_ops.norm`` composes it, so its gradient is theirs (NaN at a zero vector for the
euclidean norm, as TF's).  ``einsum`` is one op (``tinyflow/ops/matrix.py``) for the equations TF
1.15's ``special_math_ops.einsum`` takes; an equation it refuses is a ValueError here too.
"""
from __future__ import annotations

import numbers
import re
import string

import numpy as np

from ..nnvm.symbol import Symbol, create_op
from .api import _tensor, reduce_max, reduce_sum, sqrt
from .api import abs as _abs
from .api import pow as _pow
from .array_ops import squeeze

__all__ = ["einsum", "norm"]

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


# -- einsum ------------------------------------------------------------------------------------
def _resolve_ellipses(terms, output, ranks):
    """TF 1.15's: each ``...`` becomes unused letters, as many as the input's rank leaves, the
    same letters for the trailing axes of every input; the output's ``...`` the longest."""
    unused = "".join(c for c in string.ascii_letters if c not in "".join(terms))
    ellipsis = ""
    for i, term in enumerate(terms):
        if "..." not in term:
            continue
        parts = term.split("...")
        if len(parts) != 2:
            raise ValueError(f"Unable to resolve ellipsis. Excess number found: "
                             f"{len(parts) - 1} vs 1.")
        if ranks[i] is None:
            raise ValueError("Unable to statically infer ellipsis axes. The input shapes has a "
                             "dynamic dimensionality.")
        count = ranks[i] - len("".join(parts))
        if count < 0:
            raise ValueError("Ellipses lengths do not match.")
        if len(unused) < count:
            raise ValueError("Unable to resolve ellipsis, too many distinct labels.")
        letters = unused[len(unused) - count:]
        terms[i] = term.replace("...", letters)
        ellipsis = letters if len(letters) > len(ellipsis) else ellipsis
    if any("." in term for term in terms) or (output is not None and "." in output.replace(
            "...", "")):
        raise ValueError(f"Period \".\" found outside of ellipsis in {terms} -> {output}.")
    return terms, None if output is None else output.replace("...", ellipsis), ellipsis


def _einsum_labels(equation, inputs):
    """``(input terms, output labels)`` of ``equation`` as TF 1.15's ``einsum`` reads it:
    spaces dropped, ``...`` resolved, an implicit output being the labels seen once, sorted,
    after the ellipsis'."""
    equation = equation.replace(" ", "")
    match = re.match(r"^([a-zA-Z,.]+)(->[a-zA-Z.]*)?$", equation)
    if not match:
        raise ValueError(f"Indices have incorrect format. Received: {equation}.")
    terms = match.group(1).split(",")
    output = match.group(2)[2:] if match.group(2) else None
    if len(inputs) != len(terms):
        raise ValueError(f'Got {len(inputs)} arguments for equation "{equation}", expecting '
                         f"{len(terms)}.")
    terms, output, ellipsis = _resolve_ellipses(
        terms, output, [x.get_shape().ndims for x in inputs])
    if output is None:
        counts = {}
        for label in "".join(terms):
            counts[label] = counts.get(label, 0) + (label not in ellipsis)
        output = ellipsis + "".join(sorted(a for a, n in counts.items() if n == 1))
    for term in terms:
        for label in term:
            if term.count(label) > 1:  # TF takes "ii" alone as a trace: TinyFlow has none
                raise ValueError(f"Subscript not supported: the axis {label} appears more "
                                 f"than once in {term}.")
    if sorted(set(output)) != sorted(output) or set(output) - set("".join(terms)):
        raise ValueError(f"Invalid equation: {equation}. The computed and specified output "
                         f"labels do not match: {output}.")
    return terms, output


def einsum(equation, *inputs, name=None) -> Symbol:
    """TF 1.15's ``tf.einsum``: Einstein summation, as ``"ij,jk->ik"`` (matmul), ``"ij->ji"``,
    ``"bij,bjk->bik"``, ``"...ij,...jk"``; an implicit output is the labels seen once, sorted.
    Inputs are contracted left to right, two at a time (one einsum op each); a label's sizes
    must agree (no broadcasting).

    Raises
    ------
    ValueError
        For an equation TF 1.15 refuses (format, argument count, a label twice in one input
        (TF's trace ``"ii"`` included, which TinyFlow lacks), output labels not in the inputs).
    """
    inputs = [_tensor(x) for x in inputs]
    terms, output = _einsum_labels(equation, inputs)
    result, labels = inputs[0], terms[0]
    for i in range(1, len(inputs)):
        needed = set(output).union(*terms[i + 1:])
        keep = "".join(dict.fromkeys(a for a in labels + terms[i] if a in needed))
        last = i == len(inputs) - 1 and sorted(keep) == sorted(output)
        keep = output if last else keep
        result = create_op("einsum", result, inputs[i], equation=f"{labels},{terms[i]}->{keep}",
                           name=name if last else None)
        labels = keep
    if labels != output or len(inputs) == 1:
        result = create_op("einsum", result, equation=f"{labels}->{output}", name=name)
    return result
