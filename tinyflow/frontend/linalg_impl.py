"""TF 1.15's ``tf.linalg`` functions of its ``linalg_impl.py`` and ``linalg_ops.py``: ``lstsq``,
``lu`` and what reads its factors (``lu_solve``, ``lu_reconstruct``, ``lu_matrix_inverse``),
``pinv``, ``matrix_rank``, ``normalize``, ``expm``, ``sqrtm``, ``tridiagonal_solve`` and
``tridiagonal_matmul``; matrices over the last two axes, batched over the leading ones.

Composed where TF composes them (lstsq's fast path of Cholesky factors, the LU readers, pinv
and matrix_rank from the SVD, normalize from ``tf.norm``, tridiagonal_matmul from shifted rows),
so their gradients are those ops'; ``lu``, ``expm``, ``sqrtm``, ``lstsq(fast=False)`` and
``tridiagonal_solve`` are ops of ``tinyflow/ops/linalg.py``.
"""
from __future__ import annotations

import collections

import numpy as np

from ..nnvm.symbol import Symbol, create_op, current_context
from .api import _tensor, cast, greater, greater_equal, reduce_max, reduce_sum
from .array_manip_ops import where_v2
from .array_ops import concat, expand_dims, one_hot, ones_like, squeeze, stack, zeros_like
from .array_ops import shape as shape_of
from .control_flow_ops import cond
from .dtypes import as_dtype, int32
from .linalg_ops import _outputs, cholesky, cholesky_solve, matrix_triangular_solve, norm, svd
from .matrix_ops import (
    matrix_band_part,
    matrix_diag,
    matrix_diag_part,
    matrix_set_diag,
    matrix_transpose,
)

__all__ = ["expm", "lstsq", "lu", "lu_matrix_inverse", "lu_reconstruct", "lu_solve",
           "matrix_rank", "normalize", "pinv", "sqrtm", "tridiagonal_matmul",
           "tridiagonal_solve"]

Lu = collections.namedtuple("Lu", ["lu", "p"])


def _float_matrices(a, name, what="a"):
    """``a`` as a tensor, checked as TF's ``_maybe_validate_matrix``: floats of rank >= 2."""
    a = _tensor(a)
    if not a.dtype.is_floating:
        raise ValueError(f"{name}: Input `{what}` must have `float`-like `dtype` (saw "
                         f"{a.dtype.name}).")
    rank = a.get_shape().ndims
    if rank is not None and rank < 2:
        raise ValueError(f"{name}: Input `{what}` must have at least 2 dimensions (saw: "
                         f"{rank}).")
    return a


# -- least squares ---------------------------------------------------------------------------
def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None) -> Symbol:
    """TF 1.15's ``tf.linalg.lstsq`` (``matrix_solve_ls``): X [..., N, K] minimising
    ``||A X - rhs||^2 + l2_regularizer ||X||^2`` for each A [..., M, N].  ``fast`` (default):
    as TF composes it, by the Cholesky factor of ``A^H A + l2 I`` (M >= N) or ``A A^H + l2 I``
    (M < N; a tf.cond picks when M and N are known only when the graph runs), so A must have
    full rank unless ``l2_regularizer`` > 0.  ``fast=False``: the
    least-norm solution by a complete orthogonal decomposition (any rank), which ignores
    ``l2_regularizer`` and has no gradient, as TF's."""
    with current_context().name_scope(name or "matrix_solve_ls"):
        matrix, rhs = _float_matrices(matrix, "lstsq", "matrix"), _tensor(rhs)
        if not fast:
            return create_op("matrix_solve_ls", matrix, rhs)
        dims = matrix.get_shape().as_list()[-2:] if matrix.get_shape().ndims else [None]
        if None not in dims:
            return _least_squares(matrix, rhs, l2_regularizer, dims[0] >= dims[1])
        rows_cols = shape_of(matrix)[-2:]  # TF's: the kind chosen when the graph runs
        return cond(greater_equal(rows_cols[0], rows_cols[1]),
                    lambda: _least_squares(matrix, rhs, l2_regularizer, True),
                    lambda: _least_squares(matrix, rhs, l2_regularizer, False))


def _least_squares(matrix, rhs, l2_regularizer, first_kind):
    """TF's: (A^H A + l2 I)^-1 A^H rhs (``first_kind``, M >= N), else A^H (A A^H + l2 I)^-1
    rhs, by the Cholesky factor of the regularized Gram matrix."""
    gramian = _product(matrix, matrix, adjoint_a=first_kind, adjoint_b=not first_kind)
    if not (isinstance(l2_regularizer, (int, float)) and l2_regularizer == 0):
        identity = matrix_diag(ones_like(matrix_diag_part(gramian)))
        gramian = gramian + cast(l2_regularizer, matrix.dtype) * identity
    chol = cholesky(gramian)
    if first_kind:
        return cholesky_solve(chol, _product(matrix, rhs, adjoint_a=True))
    return _product(matrix, cholesky_solve(chol, rhs), adjoint_a=True)


# -- LU ----------------------------------------------------------------------------------------
def lu(input, output_idx_type=int32, name=None) -> Lu:
    """TF 1.15's ``tf.linalg.lu``: ``(lu, p)``, L (unit diagonal, not stored) below the
    diagonal of ``lu`` and U on and above it, with ``L U = input[..., p, :]``; ``p`` of
    ``output_idx_type`` (int32 or int64).  A singular matrix is TF's InvalidArgumentError
    when the graph runs ("Input is not invertible."); no gradient, as TF 1.15's."""
    index_type = as_dtype(output_idx_type)
    if index_type.name not in ("int32", "int64"):
        raise TypeError(f"Value passed to parameter 'output_idx_type' has DataType "
                        f"{index_type.name} not in list of allowed values: int32, int64")
    return Lu(*_outputs(create_op("lu", _tensor(input), output_idx_type=index_type.name,
                                  name=name or "Lu")))


def _lu_checked(lower_upper, perm, name):
    """TF's static checks of ``_lu_reconstruct_assertions``."""
    lower_upper, perm = _tensor(lower_upper), _tensor(perm)
    rank, perm_rank = lower_upper.get_shape().ndims, perm.get_shape().ndims
    if rank is not None and rank < 2:
        raise ValueError(f"{name}: Input `lower_upper` must have at least 2 dimensions.")
    if rank is not None and perm_rank is not None and rank != perm_rank + 1:
        raise ValueError(f"{name}: `rank(lower_upper)` must equal `rank(perm) + 1`")
    dims = lower_upper.get_shape().as_list() if rank is not None else []
    if dims and None not in dims[-2:] and dims[-2] != dims[-1]:
        raise ValueError(f"{name}: `lower_upper` must be square.")
    return lower_upper, perm


def _lower_unit(lower_upper):
    """L: the strict lower triangle of ``lower_upper`` and ones on the diagonal."""
    return matrix_set_diag(matrix_band_part(lower_upper, -1, 0),
                           matrix_diag_part(lower_upper) * 0 + 1)


def _product(a, b, adjoint_a=False, adjoint_b=False):
    """op(a) @ op(b) of batches of matrices, their rank known or not (tf.matmul needs it)."""
    return create_op("batch_matmul", a, b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)


def _last_dim(x):
    """x's last dim when known, else None."""
    shape = x.get_shape()
    return None if shape.ndims is None else shape.as_list()[-1]


def _permutation(perm, lower_upper):
    """P [..., N, N] with P x = x[..., perm, :] (P[i, perm[i]] = 1)."""
    size = _last_dim(lower_upper)
    return one_hot(perm, size if size is not None else shape_of(lower_upper)[-1],
                   dtype=lower_upper.dtype)


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None) -> Symbol:
    """TF 1.15's ``tf.linalg.lu_solve``: X with A X = rhs, A given by :func:`lu`'s factors
    (``rhs [..., N, K]`` of the factors' batch axes)."""
    with current_context().name_scope(name or "lu_solve"):
        lower_upper, perm = _lu_checked(lower_upper, perm, "lu_solve")
        rhs = _tensor(rhs)
        rhs_dims = rhs.get_shape().as_list() if rhs.get_shape().ndims is not None else None
        if rhs_dims is not None and len(rhs_dims) < 2:
            raise ValueError("lu_solve: `rhs` must have at least 2 dimensions.")
        size = _last_dim(lower_upper)
        if rhs_dims is not None and None not in (size, rhs_dims[-2]) and rhs_dims[-2] != size:
            raise ValueError("lu_solve: `lower_upper.shape[-1]` must equal `rhs.shape[-2]`.")
        permuted = _product(_permutation(perm, lower_upper), rhs)
        x = matrix_triangular_solve(_lower_unit(lower_upper), permuted, lower=True)
        return matrix_triangular_solve(lower_upper, x, lower=False)


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None) -> Symbol:
    """TF 1.15's ``tf.linalg.lu_reconstruct``: the matrix A whose :func:`lu` gave
    ``(lower_upper, perm)``: ``P^-1 L U``."""
    with current_context().name_scope(name or "lu_reconstruct"):
        lower_upper, perm = _lu_checked(lower_upper, perm, "lu_reconstruct")
        product = _product(_lower_unit(lower_upper), matrix_band_part(lower_upper, 0, -1))
        return _product(_permutation(perm, lower_upper), product, adjoint_a=True)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None) -> Symbol:
    """TF 1.15's ``tf.linalg.lu_matrix_inverse``: inv(A) from :func:`lu`'s factors, as TF's
    ``lu_solve`` of the identity."""
    with current_context().name_scope(name or "lu_matrix_inverse"):
        lower_upper, perm = _lu_checked(lower_upper, perm, "lu_matrix_inverse")
        identity = matrix_diag(ones_like(matrix_diag_part(lower_upper)))
        return lu_solve(lower_upper, perm, identity)


# -- from the SVD: pinv, matrix_rank; normalize -----------------------------------------------
def _largest_dim(a):
    """max(M, N) of a's matrices: a number when known, else a tensor of a's dtype (TF's)."""
    dims = a.get_shape().as_list()[-2:] if a.get_shape().ndims is not None else [None]
    if None not in dims:
        return float(max(dims))
    return cast(reduce_max(shape_of(a)[-2:]), a.dtype)


def pinv(a, rcond=None, validate_args=False, name=None) -> Symbol:
    """TF 1.15's ``tf.linalg.pinv``: the Moore-Penrose pseudo-inverse [..., N, M] of each
    matrix [..., M, N], from its SVD, singular values at most ``rcond`` times the largest
    dropped (``rcond`` default: ``10 * max(M, N) * eps`` of the dtype, as TF's)."""
    with current_context().name_scope(name or "pinv"):
        a = _float_matrices(a, "pinv")
        if rcond is None:
            rcond = 10.0 * _largest_dim(a) * np.finfo(a.dtype.name).eps
        values, left, right = svd(a, full_matrices=False, compute_uv=True)
        cutoff = cast(rcond, a.dtype) * reduce_max(values, axis=-1, keepdims=True)
        inverted = where_v2(greater(values, cutoff), values, values * 0 + np.inf)
        return _product(right / expand_dims(inverted, -2), left, adjoint_b=True)


def matrix_rank(a, tol=None, validate_args=False, name=None) -> Symbol:
    """TF 1.15's ``tf.linalg.matrix_rank``: the number of singular values above ``tol``
    (default: ``eps * max(M, N) * the largest``) of each matrix, int32."""
    with current_context().name_scope(name or "matrix_rank"):
        a = _float_matrices(a, "matrix_rank")
        values = svd(a, compute_uv=False)
        if tol is None:
            eps = np.finfo(a.dtype.name).eps
            tol = (eps * _largest_dim(a)) * reduce_max(values, axis=-1, keepdims=True)
        return reduce_sum(cast(greater(values, cast(tol, a.dtype)), int32), axis=-1)


def normalize(tensor, ord="euclidean", axis=None, name=None) -> tuple:
    """TF 1.15's ``tf.linalg.normalize``: ``(tensor / norm, norm)``, the norm as
    :func:`tf.norm`'s with ``keepdims=True`` (a zero norm gives NaN, as TF's)."""
    with current_context().name_scope(name or "normalize"):
        tensor = _tensor(tensor)
        magnitude = cast(norm(tensor, ord=ord, axis=axis, keepdims=True), tensor.dtype)
        return tensor / magnitude, magnitude


# -- expm, sqrtm -------------------------------------------------------------------------------
def expm(input, name=None) -> Symbol:
    """TF 1.15's ``tf.linalg.expm``: the exponential of each square matrix (float32 /
    float64); its gradient by the block matrix ``expm([[A^H, G], [0, A^H]])``."""
    with current_context().name_scope(name or "matrix_exponential"):
        matrix = _tensor(input)
        if matrix.dtype.name not in ("float32", "float64", "float16"):
            raise ValueError(f"tf.linalg.expm does not support matrices of type "
                             f"{matrix.dtype!r}")
        return create_op("matrix_exponential", matrix)


def sqrtm(input, name=None) -> Symbol:
    """TF 1.15's ``tf.linalg.sqrtm``: the principal square root of each square matrix; NaN
    for a matrix with a negative real eigenvalue (as TF's) or a singular one."""
    return create_op("matrix_square_root", _tensor(input), name=name or "MatrixSquareRoot")


# -- tridiagonal matrices ----------------------------------------------------------------------
def _shifted(x, up):
    """x [..., M, K] moved one row up (row M-1 zero) or down (row 0 zero)."""
    zeros = zeros_like(x[..., :1, :])
    return concat([x[..., 1:, :], zeros], -2) if up else concat([zeros, x[..., :-1, :]], -2)


def _compact(diagonals, diagonals_format):
    """(super, main, sub) [..., M] each from TF's formats."""
    if diagonals_format == "compact":
        diagonals = _tensor(diagonals)
        dims = diagonals.get_shape()
        if dims.ndims is not None and dims.ndims >= 2 and dims[-2].value not in (None, 3):
            raise ValueError(f"Expected 3 diagonals got {dims[-2].value}")
        return diagonals[..., 0, :], diagonals[..., 1, :], diagonals[..., 2, :]
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (tuple, list)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3.")
        superdiag, maindiag, subdiag = (_tensor(d) for d in diagonals)
        size = maindiag.get_shape()[-1].value
        parts = []
        for part, label, before in ((superdiag, "superdiagonal", False), (subdiag,
                                                                          "subdiagonal", True)):
            n = part.get_shape()[-1].value
            if n is not None and size is not None and n == size - 1:
                zero = zeros_like(part[..., :1])
                part = concat([zero, part] if before else [part, zero], -1)
            elif n is not None and size is not None and n != size:
                raise ValueError(f"Expected {label} to be have length {size} or {size - 1}, "
                                 f"got {n}.")
            parts.append(part)
        return parts[0], maindiag, parts[1]
    if diagonals_format == "matrix":
        matrix = _tensor(diagonals)
        m1, m2 = (matrix.get_shape()[i].value for i in (-1, -2))
        if m1 and m2 and m1 != m2:
            raise ValueError(f"Expected last two dimensions of diagonals to be same, got {m1} "
                             f"and {m2}")
        superdiag = matrix_diag_part(matrix[..., :-1, 1:])
        subdiag = matrix_diag_part(matrix[..., 1:, :-1])
        zero = zeros_like(superdiag[..., :1])
        return (concat([superdiag, zero], -1), matrix_diag_part(matrix),
                concat([zero, subdiag], -1))
    raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None) -> Symbol:
    """TF 1.15's ``tf.linalg.tridiagonal_matmul``: A rhs for each tridiagonal A, given as
    ``diagonals`` in TF's formats (``compact`` [..., 3, M]: super, main, sub; ``sequence``:
    three [..., M] tensors; ``matrix`` [..., M, M]), rhs [..., M, N]."""
    with current_context().name_scope(name or "TridiagonalMatMul"):
        superdiag, maindiag, subdiag = _compact(diagonals, diagonals_format)
        rhs = _tensor(rhs)
        if rhs.get_shape().ndims is not None and rhs.get_shape().ndims < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank "
                             f"{rhs.get_shape().ndims} for 'TridiagonalMatMul' (rhs "
                             f"{rhs.get_shape()})")
        column = lambda d: expand_dims(d, -1)
        return (column(maindiag) * rhs + column(superdiag) * _shifted(rhs, up=True)
                + column(subdiag) * _shifted(rhs, up=False))


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False,
                      conjugate_rhs=False, name=None, partial_pivoting=True) -> Symbol:
    """TF 1.15's ``tf.linalg.tridiagonal_solve``: X with A X = rhs for each tridiagonal A,
    given as ``diagonals`` in TF's formats (see :func:`tridiagonal_matmul`); rhs [..., M] or
    [..., M, K] ([..., K, M] with ``transpose_rhs``).  Gaussian elimination with partial
    pivoting, or without (``partial_pivoting=False``: a zero pivot gives NaN, as TF's)."""
    with current_context().name_scope(name or "TridiagonalSolve"):
        compact = stack(list(_compact(diagonals, diagonals_format)), axis=-2)
        rhs = _tensor(rhs)
        rank, rhs_rank = compact.get_shape().ndims, rhs.get_shape().ndims
        if rank is not None and rhs_rank is not None and rhs_rank not in (rank - 1, rank):
            raise ValueError(f"Expected the rank of rhs to be {rank - 1} or {rank}, got "
                             f"{rhs_rank}")
        vector = rank is not None and rhs_rank == rank - 1
        if vector:
            rhs = expand_dims(rhs, -1)
        elif transpose_rhs:
            rhs = matrix_transpose(rhs)
        if rank is not None and rhs_rank is not None:
            batch, rhs_batch = compact.get_shape()[:-2], rhs.get_shape()[:rank - 2]
            if not batch.is_compatible_with(rhs_batch):
                raise ValueError(f"Batch shapes {batch} and {rhs_batch} are incompatible")
        result = create_op("tridiagonal_solve", compact, rhs,
                           partial_pivoting=bool(partial_pivoting))
        return squeeze(result, -1) if vector else result
