"""Kernels of the linear-algebra bodies (tinyflow/ops/linalg.py), over torch.linalg: each
writes into the outputs the memory plan gave it.  A singular matrix (inverse, solve) or one
not positive definite (Cholesky) is TF 1.15's InvalidArgumentError, with its message; the
decompositions (svd, qr, self_adjoint_eig) of a matrix holding a NaN or an infinity give NaN,
LAPACK never iterating on it."""
from __future__ import annotations

import torch

from ...nnvm.errors import InvalidArgumentError

__all__ = ["batch_matmul", "cholesky", "determinant", "eig", "expm", "inverse", "lu", "qr",
           "slogdet", "solve", "solve_ls", "sqrtm", "svd", "triangular_solve",
           "tridiagonal_solve"]


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


def lu(packed, perm, a) -> None:
    """TF's Lu: packed = L (strictly below the diagonal) and U, perm with L U = a[perm]; TF's
    error for a singular matrix."""
    if a.numel() == 0:
        return
    factor, pivots, info = torch.linalg.lu_factor_ex(a)
    if bool((info != 0).any()) or not bool(torch.isfinite(factor).all()):
        raise _invalid("Input is not invertible.")
    packed.copy_(factor)
    # torch's a = P L U: row i of L U is row perm[i] of a, the column of P's one in row i
    perm.copy_(torch.lu_unpack(factor, pivots, unpack_data=False)[0].argmax(-2))


def expm(res, a) -> None:
    """res = the matrix exponential of each matrix."""
    res.copy_(torch.linalg.matrix_exp(a))


def _denman_beavers(x):
    """The square roots of the matrices x (float64) by Denman and Beavers' iteration, scaled by
    the determinant; NaN where it does not settle (a singular matrix)."""
    y, z = x.clone(), torch.eye(x.shape[-1], dtype=x.dtype, device=x.device).expand_as(x)
    settled = torch.zeros(x.shape[:-2], dtype=torch.bool, device=x.device)
    for _ in range(100):
        inv_y, info_y = torch.linalg.inv_ex(y)
        inv_z, info_z = torch.linalg.inv_ex(z)
        if bool(((info_y != 0) | (info_z != 0)).any()):
            break
        scale = (torch.linalg.det(y) * torch.linalg.det(z)).abs().clamp_min(1e-300) ** (
            -0.5 / x.shape[-1])
        scale = scale.nan_to_num(1.0)[..., None, None]
        y_next = (scale * y + inv_z / scale) / 2
        z = (scale * z + inv_y / scale) / 2
        settled = (y_next - y).abs().amax((-2, -1)) <= 1e-14 * y_next.abs().amax((-2, -1))
        y = y_next
        if bool(settled.all()):
            break
    return torch.where(settled[..., None, None], y, torch.full_like(y, float("nan")))


def sqrtm(res, a) -> None:
    """res = the principal square root of each matrix, in float64: Denman and Beavers'
    iteration, or (a singular matrix) the eigenvectors' V sqrt(D) V^-1; NaN for a matrix with
    a negative real eigenvalue (as TF's), a NaN or an infinity, or no root found (x^2 = a to
    1e-8 of a's largest element)."""
    if a.numel() == 0:
        return
    finite = torch.isfinite(a).all(-1).all(-1)
    eye = torch.eye(a.shape[-1], dtype=torch.float64, device=a.device)
    x = torch.where(finite[..., None, None], a.double(), eye)  # LAPACK never sees a NaN
    values, vectors = torch.linalg.eig(x)
    negative = ((values.real < 0) & (values.imag == 0)).any(-1)
    root = _denman_beavers(x)
    unsettled = ~torch.isfinite(root).all(-1).all(-1)
    if bool(unsettled.any()):
        inverse, _ = torch.linalg.inv_ex(vectors)
        by_eig = (vectors @ torch.diag_embed(values.sqrt()) @ inverse).real
        root = torch.where(unsettled[..., None, None], by_eig, root)
    error = (root @ root - x).abs().amax((-2, -1)).nan_to_num(float("inf"))
    found = error <= 1e-8 * x.abs().amax((-2, -1)).clamp_min(1.0)
    bad = ~finite | negative | ~found
    res.copy_(torch.where(bad[..., None, None], torch.full_like(root, float("nan")), root))


def solve_ls(res, a, rhs) -> None:
    """res = the least-squares solution of least norm of a X = rhs (TF's fast=False)."""
    res.copy_(torch.linalg.pinv(a) @ rhs)


def _lapack_gtsv(sub, main, sup, b, pivoting: bool):
    """X with A X = b, A tridiagonal: sub[i] = A[i + 1, i], main, sup[i] = A[i, i + 1] (length
    n - 1), b [..., n, k]; LAPACK's gtsv (Gaussian elimination, rows swapped when the sub-
    diagonal entry is larger) vectorised over the batch, or without swaps (Thomas')."""
    n = main.shape[-1]
    d, du, dl, b = main.clone(), sup.clone(), sub.clone(), b.clone()
    du2 = torch.zeros_like(d)  # U's second superdiagonal, from swaps
    for i in range(n - 1):
        swap = (d[..., i].abs() < dl[..., i].abs()) if pivoting else torch.zeros_like(
            d[..., i], dtype=torch.bool)
        di, li, ui, di1 = (t[..., k].clone() for t, k in ((d, i), (dl, i), (du, i), (d, i + 1)))
        ui1 = du[..., i + 1].clone() if i < n - 2 else torch.zeros_like(di)
        fact = torch.where(swap, di / li, li / di)
        bi, bi1 = b[..., i, :], b[..., i + 1, :]
        s = swap[..., None]
        b[..., i, :], b[..., i + 1, :] = (torch.where(s, bi1, bi),
                                          torch.where(s, bi - fact[..., None] * bi1,
                                                      bi1 - fact[..., None] * bi))
        d[..., i] = torch.where(swap, li, di)
        d[..., i + 1] = torch.where(swap, ui - fact * di1, di1 - fact * ui)
        du[..., i] = torch.where(swap, di1, ui)
        du2[..., i] = torch.where(swap, ui1, torch.zeros_like(ui1))
        if i < n - 2:
            du[..., i + 1] = torch.where(swap, -fact * ui1, ui1)
    for i in range(n - 1, -1, -1):
        value = b[..., i, :]
        if i + 1 < n:
            value = value - du[..., i, None] * b[..., i + 1, :]
        if i + 2 < n:
            value = value - du2[..., i, None] * b[..., i + 2, :]
        b[..., i, :] = value / d[..., i, None]
    return b


def tridiagonal_solve(res, diags, rhs, partial_pivoting) -> None:
    """res = X with A X = rhs, A given by diags [..., 3, n] (super, main, sub: TF's compact
    format, whose super[n - 1] and sub[0] are not read)."""
    if rhs.shape[-2] == 0:
        return
    res.copy_(_lapack_gtsv(diags[..., 2, 1:], diags[..., 1, :], diags[..., 0, :-1], rhs,
                           _flag(partial_pivoting, True)))

