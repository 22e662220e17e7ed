"""``tf.linalg``: the names of TensorFlow 1.15's ``tf.linalg`` that TinyFlow has, the very
functions ``tf.*`` and ``tf.nn.*`` give.  Any other ``tf.linalg.X`` is an AttributeError saying
TinyFlow does not support it.
"""
from __future__ import annotations

from .api import matmul
from .linalg_ops import einsum, norm
from .math_ops import global_norm, l2_normalize, tensordot
from .unsupported import unsupported

__all__ = ["einsum", "global_norm", "l2_normalize", "matmul", "norm", "tensordot"]


def __getattr__(name):
    raise unsupported("tf.linalg.", "tinyflow.tf_linalg", name, {"tf.linalg.": __all__})
