"""test_ops' table for the linear-algebra ops of tinyflow/ops/linalg.py: each against its
torch.linalg twin (float64 autograd) and finite differences, memory planning on and off,
single matrices and batches.  Inputs are well-conditioned matrices (the identity's multiple
plus noise), so float32 finite differences are meaningful.  The outputs with a sign LAPACK
chooses (svd's u and v, qr, self_adjoint_eig's vectors) and the gradients through them are
tested in tests/test_linalg.py with losses that do not depend on it; here svd and
self_adjoint_eig give their values only.  Ops reading one triangle (cholesky,
self_adjoint_eig) get x + x^T, so their gradient is compared where it is defined."""
import numpy as np
import torch

import tinyflow as tf
from tinyflow.nnvm.symbol import create_op


def _conditioned(*shape, scale=3.0):
    """Matrices of shape [..., N, N]: scale * I plus standard normal noise."""
    def values(rng):
        return rng.standard_normal(shape) + scale * np.eye(shape[-1])
    return values


def _inputs(*makers):
    return lambda rng: [make(rng) if callable(make) else rng.standard_normal(make)
                        for make in makers]


def _op(name, **attrs):
    return lambda *xs: create_op(name, *xs, **attrs)


def _t(x):
    return x.transpose(-2, -1)


def _symmetric(x):
    return x + tf.matrix_transpose(x)


def _triangle(lower):
    return torch.tril if lower else torch.triu


def add_cases(add):
    for adjoint_a in (False, True):
        for adjoint_b in (False, True):
            a = (2, 4, 3) if adjoint_a else (2, 3, 4)
            b = (2, 5, 4) if adjoint_b else (2, 4, 5)
            add("batch_matmul", f"adjoint-{adjoint_a:d}{adjoint_b:d}", _op(
                "batch_matmul", adjoint_a=adjoint_a, adjoint_b=adjoint_b), [a, b],
                lambda x, y, ta=adjoint_a, tb=adjoint_b: (_t(x) if ta else x) @ (
                    _t(y) if tb else y))
    for adjoint in (False, True):
        add("matrix_inverse", f"batch-adjoint-{adjoint:d}",
            lambda x, adj=adjoint: tf.matrix_inverse(x, adjoint=adj), [(2, 3, 3)],
            lambda x, adj=adjoint: torch.linalg.inv(_t(x) if adj else x),
            inputs=_inputs(_conditioned(2, 3, 3)))
    add("matrix_inverse", "4x4", tf.matrix_inverse, [(4, 4)], torch.linalg.inv,
        inputs=_inputs(_conditioned(4, 4)))
    for shape in ((3, 3), (2, 2, 3, 3)):
        add("matrix_determinant", f"{shape}", tf.matrix_determinant, [shape], torch.linalg.det,
            inputs=_inputs(_conditioned(*shape, scale=1.0)))
    add("log_matrix_determinant", "batch", _op("log_matrix_determinant"), [(3, 3, 3)],
        lambda x: tuple(torch.linalg.slogdet(x)), inputs=lambda rng: [
            np.stack([rng.standard_normal((3, 3)) + s * np.eye(3) for s in (2.0, -2.0, 0.0)])])
    add("cholesky", "batch", lambda x: tf.cholesky(_symmetric(x)), [(2, 3, 3)],
        lambda x: torch.linalg.cholesky(x + _t(x)),
        inputs=_inputs(lambda rng: 0.3 * rng.standard_normal((2, 3, 3)) + 2 * np.eye(3)))
    for adjoint in (False, True):
        add("matrix_solve", f"batch-adjoint-{adjoint:d}",
            lambda a, b, adj=adjoint: tf.matrix_solve(a, b, adjoint=adj), [(2, 3, 3), (2, 3, 2)],
            lambda a, b, adj=adjoint: torch.linalg.solve(_t(a) if adj else a, b),
            inputs=_inputs(_conditioned(2, 3, 3), (2, 3, 2)))
    for lower in (True, False):
        for adjoint in (False, True):
            add("matrix_triangular_solve", f"lower-{lower:d}-adjoint-{adjoint:d}",
                lambda a, b, lo=lower, adj=adjoint: tf.matrix_triangular_solve(
                    a, b, lower=lo, adjoint=adj), [(2, 3, 3), (2, 3, 4)],
                lambda a, b, lo=lower, adj=adjoint: torch.linalg.solve_triangular(
                    _t(_triangle(lo)(a)) if adj else _triangle(lo)(a), b,
                    upper=lo == adj), inputs=_inputs(_conditioned(2, 3, 3), (2, 3, 4)))
    for shape in ((2, 4, 3), (3, 5), (3, 3)):
        add("svd", f"values-{shape}", lambda x: tf.svd(x, compute_uv=False), [shape],
            torch.linalg.svdvals, inputs=_inputs(shape))
    add("self_adjoint_eig", "values-batch", lambda x: tf.self_adjoint_eigvals(_symmetric(x)),
        [(2, 3, 3)], lambda x: torch.linalg.eigvalsh(x + _t(x)), inputs=_inputs((2, 3, 3)))


# qr's outputs both have a sign LAPACK chooses: tested with sign-free checks
SPECIAL_TESTS = {"qr": ["test_linalg.py::test_qr_factors", "test_linalg.py::test_qr_gradient"]}
