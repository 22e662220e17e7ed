"""Kernels of the linear-algebra bodies (tinyflow/ops/linalg.py), over torch.linalg: each
writes into the outputs the memory plan gave it.  A singular matrix (inverse, solve) or one
not positive definite (Cholesky) is TF 1.15's InvalidArgumentError, with its message; the
decompositions (svd, qr, self_adjoint_eig) of a matrix holding a NaN or an infinity give NaN,
LAPACK never iterating on it."""
from __future__ import annotations

import torch

from ...nnvm.errors import InvalidArgumentError

__all__ = ["batch_matmul", "cholesky", "determinant", "eig", "inverse", "qr", "slogdet", "solve",
           "svd", "triangular_solve"]


def _invalid(message):
    return InvalidArgumentError(None, None, message)


def _flag(value, default=False) -> bool:
    """A boolean attribute as the body passes it (nil when the node left it out)."""
    return default if value is None else bool(value)


def _t(x):
    return x.transpose(-2, -1)


def _maybe_t(x, adjoint):
    return _t(x) if _flag(adjoint) else x


def batch_matmul(res, a, b, adjoint_a, adjoint_b) -> None:
    """res = op(a) @ op(b) for each matrix, op the transpose where asked (real: the adjoint)."""
    torch.matmul(_maybe_t(a, adjoint_a), _maybe_t(b, adjoint_b), out=res)


def inverse(res, a, adjoint) -> None:
    """res = inv(a) (inv(a^H) with adjoint); TF's error for a singular matrix."""
    value, info = torch.linalg.inv_ex(_maybe_t(a, adjoint))
    if bool((info != 0).any()):
        raise _invalid("Input is not invertible.")
    res.copy_(value)


def determinant(res, a) -> None:
    """res = det(a) of each matrix (1 for a 0x0 one, as TF's)."""
    res.copy_(torch.linalg.det(a))


def slogdet(sign, log_abs, a) -> None:
    """sign, log|det a| of each matrix (0 and -inf for a singular one, as TF's)."""
    s, value = torch.linalg.slogdet(a)
    sign.copy_(s)
    log_abs.copy_(value)


def cholesky(res, a) -> None:
    """res = L, lower, with a = L L^H, from a's lower triangle; TF 1.15's error when a is not
    positive definite (a NaN included)."""
    value, info = torch.linalg.cholesky_ex(a)
    if bool((info != 0).any()):
        raise _invalid("Cholesky decomposition was not successful. The input might not be "
                       "valid.")
    res.copy_(value)


def solve(res, a, rhs, adjoint) -> None:
    """res = X with op(a) X = rhs; TF's error for a singular matrix."""
    value, info = torch.linalg.solve_ex(_maybe_t(a, adjoint), rhs)
    if bool((info != 0).any()):
        raise _invalid("Input matrix is not invertible.")
    res.copy_(value)


def triangular_solve(res, a, rhs, lower, adjoint) -> None:
    """res = X with op(T) X = rhs, T a's lower (or upper) triangle: the rest of a is not read;
    a zero on T's diagonal gives infinities, as TF's."""
    lower, adjoint = _flag(lower, True), _flag(adjoint)
    matrix = _t(a) if adjoint else a
    res.copy_(torch.linalg.solve_triangular(matrix, rhs, upper=lower == adjoint))


def _finite(a, *outs) -> bool:
    """Whether a is all finite; if not, every output is NaN (LAPACK is not run on it)."""
    if bool(torch.isfinite(a).all()):
        return True
    for out in outs:
        out.fill_(float("nan"))
    return False


def _eye_into(out):
    """out = identity-like matrices (ones on the diagonal), for an empty input's factors."""
    out.zero_()
    out.diagonal(dim1=-2, dim2=-1).fill_(1)


def svd(s, u, v, a, full_matrices) -> None:
    """s = a's singular values (descending); u, v (when given) with a = u diag(s) v^H."""
    outs = [t for t in (s, u, v) if t is not None]
    if not _finite(a, *outs):
        return
    if a.numel() == 0:
        for factor in outs[1:]:
            _eye_into(factor)
        return
    if u is None:
        s.copy_(torch.linalg.svdvals(a))
        return
    left, values, right_h = torch.linalg.svd(a, full_matrices=_flag(full_matrices))
    s.copy_(values)
    u.copy_(left)
    v.copy_(_t(right_h))


def qr(q, r, a, full_matrices) -> None:
    """q, r with a = q r (q's columns orthonormal, r upper triangular)."""
    if not _finite(a, q, r):
        return
    if a.numel() == 0:
        _eye_into(q)
        r.zero_()
        return
    factor_q, factor_r = torch.linalg.qr(a, mode="complete" if _flag(full_matrices)
                                         else "reduced")
    q.copy_(factor_q)
    r.copy_(factor_r)


def eig(e, v, a) -> None:
    """e = the eigenvalues (ascending) of each self-adjoint matrix, from its lower triangle;
    v (when given) its eigenvectors as columns."""
    outs = [t for t in (e, v) if t is not None]
    if not _finite(a, *outs):
        return
    if v is None:
        e.copy_(torch.linalg.eigvalsh(a, UPLO="L"))
        return
    values, vectors = torch.linalg.eigh(a, UPLO="L")
    e.copy_(values)
    v.copy_(vectors)
