"""``tf.linalg``: the names of TensorFlow 1.15's ``tf.linalg`` that TinyFlow has, the very
functions ``tf.*`` and ``tf.nn.*`` give.  Any other ``tf.linalg.X`` is an AttributeError saying
TinyFlow does not support it.
"""
from __future__ import annotations

from .array_manip_ops import eye
from .linalg_impl import (
    expm,
    lstsq,
    lu,
    lu_matrix_inverse,
    lu_reconstruct,
    lu_solve,
    matrix_rank,
    normalize,
    pinv,
    sqrtm,
    tridiagonal_matmul,
    tridiagonal_solve,
)
from .linalg_ops import cholesky, cholesky_solve, einsum, logdet, norm, qr, svd
from .linalg_ops import log_matrix_determinant as slogdet
from .linalg_ops import matrix_determinant as det
from .linalg_ops import matrix_inverse as inv
from .linalg_ops import matrix_solve as solve
from .linalg_ops import matrix_triangular_solve as triangular_solve
from .linalg_ops import self_adjoint_eig as eigh
from .linalg_ops import self_adjoint_eigvals as eigvalsh
from .math_ops import global_norm, l2_normalize, tensordot
from .matmul_ops import cross, matmul, matvec
from .matrix_ops import diag as tensor_diag
from .matrix_ops import diag_part as tensor_diag_part
from .matrix_ops import matrix_band_part as band_part
from .matrix_ops import matrix_diag as diag
from .matrix_ops import matrix_diag_part as diag_part
from .matrix_ops import matrix_set_diag as set_diag
from .matrix_ops import matrix_transpose, trace
from .matrix_ops import matrix_transpose as adjoint  # real dtypes: the transpose
from .matrix_ops import matrix_transpose as transpose
from .unsupported import unsupported

__all__ = ["adjoint", "band_part", "cholesky", "cholesky_solve", "cross", "det", "diag",
           "diag_part", "eigh", "eigvalsh", "einsum", "expm", "eye", "global_norm", "inv",
           "l2_normalize", "logdet", "lstsq", "lu", "lu_matrix_inverse", "lu_reconstruct",
           "lu_solve", "matmul", "matrix_rank", "matrix_transpose", "matvec", "norm",
           "normalize", "pinv", "qr", "set_diag", "slogdet", "solve", "sqrtm", "svd",
           "tensor_diag", "tensor_diag_part", "tensordot", "trace", "transpose",
           "triangular_solve", "tridiagonal_matmul", "tridiagonal_solve"]


def __getattr__(name):
    raise unsupported("tf.linalg.", "tinyflow.tf_linalg", name, {"tf.linalg.": __all__})
