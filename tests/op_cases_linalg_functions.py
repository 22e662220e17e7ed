"""test_ops' table for the ops of TF 1.15's linalg_impl (tinyflow/ops/linalg.py: lu,
matrix_exponential, matrix_square_root, matrix_solve_ls, tridiagonal_solve)
and tf.math.nextafter (ops/math.py): each against a PyTorch twin in float64 (torch.linalg's,
or the dense matrix a tridiagonal one is), gradients against finite differences and torch
autograd, memory planning on and off.  The TF-1 functions composed around them are tested in
tests/test_linalg_impl.py."""
import numpy as np
import torch

import tinyflow as tf
from tinyflow.nnvm.symbol import create_op


def _conditioned(*shape, scale=3.0):
    def values(rng):
        return rng.standard_normal(shape) + scale * np.eye(shape[-1])
    return values


def _dense(diags):
    """The dense [..., M, M] matrix of compact diagonals [..., 3, M] (super, main, sub)."""
    up, main, down = diags[..., 0, :], diags[..., 1, :], diags[..., 2, :]
    size = main.shape[-1]
    shift = torch.eye(size, dtype=diags.dtype).roll(1, 1).triu(1)  # ones at (i, i + 1)
    return (torch.diag_embed(main) + up.unsqueeze(-1) * shift
            + down.unsqueeze(-1) * shift.transpose(0, 1))


def _tridiagonal_inputs(batch, size, columns):
    def values(rng):
        diags = rng.standard_normal(batch + (3, size))
        diags[..., 1, :] += 4.0  # dominant: no pivot near zero, well conditioned
        return [diags, rng.standard_normal(batch + (size, columns))]
    return values


def _lu_ref(a):
    factor, pivots = torch.linalg.lu_factor(a)
    perm = torch.lu_unpack(factor, pivots, unpack_data=False)[0].argmax(-2)
    return factor, perm.to(torch.int32)


def _sqrtm_spd(a):
    """The square root of the symmetric positive definite a a^T + I, by its eigenvectors."""
    spd = a @ a.transpose(-2, -1) + torch.eye(a.shape[-1], dtype=a.dtype)
    values, vectors = torch.linalg.eigh(spd)
    return vectors @ torch.diag_embed(values.sqrt()) @ vectors.transpose(-2, -1)


def add_cases(add):
    for shape in ((3, 3), (2, 4, 4)):
        add("lu", f"{shape}", lambda x: create_op("lu", x, output_idx_type="int32"), [shape],
            _lu_ref, inputs=lambda rng, s=shape: [rng.standard_normal(s)],
            check_gradient=False)
    for shape in ((3, 3), (2, 3, 3)):
        add("matrix_exponential", f"{shape}", tf.linalg.expm, [shape], torch.linalg.matrix_exp,
            inputs=lambda rng, s=shape: [0.5 * rng.standard_normal(s)])
        add("matrix_square_root", f"spd-{shape}", lambda a, n=shape[-1]: tf.linalg.sqrtm(
            tf.matmul(a, a, transpose_b=True) + tf.eye(n)), [shape], _sqrtm_spd,
            inputs=lambda rng, s=shape: [rng.standard_normal(s)])
    for rows, cols in ((4, 3), (3, 4), (5, 3)):
        add("matrix_solve_ls", f"{rows}x{cols}", lambda a, b: tf.linalg.lstsq(a, b, fast=False),
            [(rows, cols), (rows, 2)], lambda a, b: torch.linalg.pinv(a) @ b,
            inputs=lambda rng, r=rows, c=cols: [rng.standard_normal((r, c)),
                                                rng.standard_normal((r, 2))],
            check_gradient=False)
    for batch, size, columns in (((), 4, 2), ((2,), 5, 3), ((), 1, 1)):
        for pivoting in (True, False):
            add("tridiagonal_solve", f"{batch}-{size}-{columns}-pivoting-{pivoting:d}",
                lambda d, b, p=pivoting: tf.linalg.tridiagonal_solve(d, b, partial_pivoting=p),
                ref=lambda d, b: torch.linalg.solve(_dense(d), b),
                inputs=_tridiagonal_inputs(batch, size, columns))
    for a, b in (((3, 4), (3, 4)), ((3, 4), (4,))):
        add("next_after", f"{a}-{b}", tf.math.nextafter, (a, b),
            lambda x, y: x + (torch.nextafter(x.float(), y.float()).double() - x).detach()
            + 0 * y)


# matrix_solve_ls (fast=False) has no gradient, TF's ValueError: tested on its own
SPECIAL_TESTS = {"matrix_solve_ls": ["test_linalg_impl.py::test_lstsq_slow_has_no_gradient"]}
