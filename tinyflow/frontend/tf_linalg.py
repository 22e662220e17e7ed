"""``tf.linalg``: the names of TensorFlow 1.15's ``tf.linalg`` that TinyFlow has, the very
functions ``tf.*`` and ``tf.nn.*`` give.  Any other ``tf.linalg.X`` is an AttributeError saying
TinyFlow does not support it.
"""
from __future__ import annotations

from .api import matmul
from .array_manip_ops import eye
from .linalg_ops import einsum, norm
from .math_ops import global_norm, l2_normalize, tensordot
from .matrix_ops import diag as tensor_diag
from .matrix_ops import diag_part as tensor_diag_part
from .matrix_ops import matrix_band_part as band_part
from .matrix_ops import matrix_diag as diag
from .matrix_ops import matrix_diag_part as diag_part
from .matrix_ops import matrix_set_diag as set_diag
from .matrix_ops import matrix_transpose as transpose
from .matrix_ops import trace
from .unsupported import unsupported

__all__ = ["band_part", "diag", "diag_part", "einsum", "eye", "global_norm", "l2_normalize", "matmul",
           "norm", "set_diag", "tensor_diag", "tensor_diag_part", "tensordot", "trace",
           "transpose"]


def __getattr__(name):
    raise unsupported("tf.linalg.", "tinyflow.tf_linalg", name, {"tf.linalg.": __all__})
