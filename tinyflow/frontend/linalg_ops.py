"""TF-1's linear algebra: ``tf.norm`` and ``tf.einsum`` (also ``tf.linalg.norm`` /
``tf.linalg.einsum``), and the matrix functions over the last two axes, batched over the leading
ones (``tf.matrix_inverse``, ``tf.cholesky``, ``tf.svd``..., their ``tf.linalg`` names in
``tf_linalg.py``).

``norm`` is composed from abs, pow, sums and maxima exactly as TensorFlow 1.15's
``linalg_ops.norm`` composes it, so its gradient is theirs (NaN at a zero vector for the
euclidean norm, as TF's); its matrix 2-norm is the largest singular value, as TF's.  ``einsum``
is one op (``tinyflow/ops/matrix.py``) for the equations TF 1.15's ``special_math_ops.einsum``
takes; an equation it refuses is a ValueError here too.  The matrix functions are the ops of
``tinyflow/ops/linalg.py``; ``cholesky_solve`` and ``logdet`` are composed as TF 1.15 composes
them.
"""
from __future__ import annotations

import collections
import numbers
import re
import string

import numpy as np

from ..nnvm.symbol import Symbol, create_op, current_context
from .api import _tensor, log, multiply, reduce_max, reduce_sum, sqrt
from .api import abs as _abs
from .api import pow as _pow
from .array_ops import expand_dims, squeeze, transpose
from .matrix_ops import matrix_diag_part

__all__ = ["cholesky", "cholesky_solve", "einsum", "log_matrix_determinant",
           "matrix_determinant", "matrix_inverse", "matrix_solve", "matrix_triangular_solve",
           "norm", "qr", "self_adjoint_eig", "self_adjoint_eigvals", "svd"]

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
        ``"euclidean"``, 1 (the largest column sum of |x|), 2 (the largest singular value),
        ``np.inf`` (the largest row sum).
    axis : None, int or a pair of distinct ints
    keepdims : bool
        Keep the reduced axes as size 1 (``keep_dims``: TF's older name).
    name : str, optional

    Raises
    ------
    ValueError
        For an ``ord`` or ``axis`` TF 1.15 refuses (the matrix 2-norm: a tensor of unknown
        rank too).
    """
    with current_context().name_scope(name or "norm"):  # TF's: norm/Squeeze
        return _norm(_tensor(tensor), ord, axis, keep_dims if keepdims is None else keepdims)


def _norm(x, ord, axis, keepdims) -> Symbol:
    axis, matrix = _norm_axis(axis)
    _check_ord(ord, matrix)
    if matrix and ord == 2:
        result = _spectral_norm(x, axis)
    elif ord in ("fro", "euclidean", 2):
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
    return result if keepdims else squeeze(result, axis)


def _spectral_norm(x, axis):
    """TF 1.15's: the largest singular value of the matrices over ``axis`` (moved last), the
    two axes kept as size 1."""
    rank = x.get_shape().ndims
    if rank is None:
        raise ValueError("tf.norm: the matrix 2-norm needs a tensor of known rank")
    rows, cols = (a % rank for a in axis)
    before = [a for a in range(rank) if a not in (rows, cols)] + [rows, cols]
    values = svd(transpose(x, before), compute_uv=False)
    largest = expand_dims(reduce_max(values, -1, keepdims=True), -1)
    return transpose(largest, [before.index(a) for a in range(rank)])


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
    with current_context().name_scope(name or "einsum"):  # TF's scope
        return _contracted(inputs, terms, output)


def _contracted(inputs, terms, output) -> Symbol:
    result, labels = inputs[0], terms[0]
    for i in range(1, len(inputs)):
        needed = set(output).union(*terms[i + 1:])
        keep = "".join(dict.fromkeys(a for a in labels + terms[i] if a in needed))
        last = i == len(inputs) - 1 and sorted(keep) == sorted(output)
        keep = output if last else keep
        result = create_op("einsum", result, inputs[i], equation=f"{labels},{terms[i]}->{keep}")
        labels = keep
    if labels != output or len(inputs) == 1:
        result = create_op("einsum", result, equation=f"{labels}->{output}")
    return result


# -- matrix functions (ops of tinyflow/ops/linalg.py) ------------------------------------------
LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant",
                                              ["sign", "log_abs_determinant"])
Qr = collections.namedtuple("Qr", ["q", "r"])


def _outputs(symbol):
    return tuple(Symbol([entry]) for entry in symbol.outputs)


def matrix_inverse(input, adjoint=False, name=None) -> Symbol:
    """TF 1.15's ``tf.matrix_inverse`` (``tf.linalg.inv``): the inverse of each square matrix
    of ``input`` [..., N, N] (float32 / float64), of its adjoint with ``adjoint``.  A singular
    matrix is an InvalidArgumentError when the graph runs ("Input is not invertible.")."""
    return create_op("matrix_inverse", _tensor(input), adjoint=bool(adjoint), name=name)


def matrix_determinant(input, name=None) -> Symbol:
    """TF 1.15's ``tf.matrix_determinant`` (``tf.linalg.det``): [...] of ``input`` [..., N,
    N]."""
    return create_op("matrix_determinant", _tensor(input), name=name)


def log_matrix_determinant(input, name=None) -> LogMatrixDeterminant:
    """TF 1.15's ``tf.linalg.slogdet`` (TF 1.x's ``tf.log_matrix_determinant``):
    ``(sign, log_abs_determinant)`` of each square matrix (0 and -inf for a singular one)."""
    return LogMatrixDeterminant(*_outputs(create_op("log_matrix_determinant", _tensor(input),
                                                    name=name)))


def cholesky(input, name=None) -> Symbol:
    """TF 1.15's ``tf.cholesky``: the lower factor L of each matrix A = L L^H, from A's lower
    triangle alone.  A matrix not positive definite is an InvalidArgumentError when the graph
    runs ("Cholesky decomposition was not successful...")."""
    return create_op("cholesky", _tensor(input), name=name)


def cholesky_solve(chol, rhs, name=None) -> Symbol:
    """TF 1.15's ``tf.cholesky_solve``: X with A X = rhs, given ``chol`` = cholesky(A),
    composed of two triangular solves as TF's (L Y = rhs, then L^H X = Y)."""
    chol = _tensor(chol)
    inner = matrix_triangular_solve(chol, rhs, lower=True, adjoint=False)
    return matrix_triangular_solve(chol, inner, lower=True, adjoint=True, name=name)


def matrix_solve(matrix, rhs, adjoint=False, name=None) -> Symbol:
    """TF 1.15's ``tf.matrix_solve`` (``tf.linalg.solve``): X [..., M, K] with A X = rhs (A^H X
    = rhs with ``adjoint``) for each square A of ``matrix``, rhs of the same batch axes.  A
    singular A is an InvalidArgumentError when the graph runs ("Input matrix is not
    invertible.")."""
    return create_op("matrix_solve", _tensor(matrix), _tensor(rhs), adjoint=bool(adjoint),
                     name=name)


def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None) -> Symbol:
    """TF 1.15's ``tf.matrix_triangular_solve`` (``tf.linalg.triangular_solve``): X with T X =
    rhs (T^H X with ``adjoint``), T the lower (``lower``) or upper triangle of each matrix of
    ``matrix``: the other triangle is not read."""
    return create_op("matrix_triangular_solve", _tensor(matrix), _tensor(rhs),
                     lower=bool(lower), adjoint=bool(adjoint), name=name)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """TF 1.15's ``tf.svd`` (``tf.linalg.svd``): ``(s, u, v)`` -- TF's order, and v, not v^H --
    with ``tensor = u diag(s) v^H`` for each matrix [..., M, N]: s [..., K] descending (K =
    min(M, N)), u [..., M, K] and v [..., N, K] (square with ``full_matrices``).  With
    ``compute_uv=False``, s alone.  The signs of u's and v's columns are LAPACK's (as TF's):
    only u diag(s) v^H is defined."""
    out = create_op("svd", _tensor(tensor), full_matrices=bool(full_matrices),
                    compute_uv=bool(compute_uv), name=name)
    return _outputs(out) if compute_uv else out


def qr(input, full_matrices=False, name=None) -> Qr:
    """TF 1.15's ``tf.qr`` (``tf.linalg.qr``): ``(q, r)`` with ``input = q r`` for each matrix
    [..., M, N], q's columns orthonormal and r upper triangular: q [..., M, K], r [..., K, N]
    (K = min(M, N)), or q [..., M, M], r [..., M, N] with ``full_matrices``.  Its gradient is
    TF 1.15's: for M >= N without ``full_matrices`` (or square)."""
    return Qr(*_outputs(create_op("qr", _tensor(input), full_matrices=bool(full_matrices),
                                  name=name)))


def self_adjoint_eig(tensor, name=None) -> tuple:
    """TF 1.15's ``tf.self_adjoint_eig`` (``tf.linalg.eigh``): ``(e, v)``, the eigenvalues
    [..., N] ascending and the eigenvectors (v's columns) of each self-adjoint matrix, whose
    lower triangle alone is read.  An eigenvector's sign is LAPACK's (as TF's)."""
    return _outputs(create_op("self_adjoint_eig", _tensor(tensor), compute_v=True, name=name))


def self_adjoint_eigvals(tensor, name=None) -> Symbol:
    """TF 1.15's ``tf.self_adjoint_eigvals`` (``tf.linalg.eigvalsh``): the eigenvalues of each
    self-adjoint matrix, ascending; its gradient computes the eigenvectors, as TF's."""
    return create_op("self_adjoint_eig", _tensor(tensor), compute_v=False, name=name)


def logdet(matrix, name=None) -> Symbol:
    """TF 1.15's ``tf.linalg.logdet``: log(det(A)) of each Hermitian positive definite matrix,
    as TF composes it: ``2 * sum(log(diag(cholesky(A))))``."""
    diagonal = matrix_diag_part(cholesky(matrix))
    return multiply(2.0, reduce_sum(log(diagonal), axis=-1), name=name)
