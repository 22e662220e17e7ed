"""``tf.sparse``: the names of TensorFlow 1.15's ``tf.sparse`` that TinyFlow has, the very
functions ``tf.sparse_*`` give (:mod:`tinyflow.frontend.sparse_ops`).  Any other
``tf.sparse.X`` is an AttributeError saying TinyFlow does not support it.
"""
from __future__ import annotations

from .sparse_ops import SparseTensor, from_dense
from .sparse_ops import sparse_add as add
from .sparse_ops import sparse_fill_empty_rows as fill_empty_rows
from .sparse_ops import sparse_placeholder as placeholder
from .sparse_ops import sparse_reduce_sum as reduce_sum
from .sparse_ops import sparse_reorder as reorder
from .sparse_ops import sparse_reshape as reshape
from .sparse_ops import sparse_retain as retain
from .sparse_ops import sparse_segment_mean as segment_mean
from .sparse_ops import sparse_segment_sqrt_n as segment_sqrt_n
from .sparse_ops import sparse_segment_sum as segment_sum
from .sparse_ops import sparse_softmax as softmax
from .sparse_ops import sparse_tensor_dense_matmul as matmul
from .sparse_ops import sparse_tensor_dense_matmul as sparse_dense_matmul
from .sparse_ops import sparse_tensor_to_dense as to_dense
from .sparse_ops import sparse_transpose as transpose
from .unsupported import unsupported

__all__ = ["SparseTensor", "add", "fill_empty_rows", "from_dense", "matmul", "placeholder", "reduce_sum",
           "reorder", "reshape", "retain", "segment_mean", "segment_sqrt_n", "segment_sum",
           "softmax", "sparse_dense_matmul", "to_dense", "transpose"]


def __getattr__(name):
    raise unsupported("tf.sparse.", "tinyflow.tf_sparse", name, {"tf.sparse.": __all__})
