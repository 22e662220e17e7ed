"""``tf.sparse``: the names of TensorFlow 1.15's ``tf.sparse`` that TinyFlow has, the very
functions ``tf.sparse_*`` give (:mod:`tinyflow.frontend.sparse_ops`).  Any other
``tf.sparse.X`` is an AttributeError saying TinyFlow does not support it.
"""
from __future__ import annotations

from .sparse_manip_ops import sparse_concat as concat
from .sparse_manip_ops import sparse_expand_dims as expand_dims
from .sparse_manip_ops import sparse_eye as eye
from .sparse_manip_ops import sparse_mask as mask
from .sparse_manip_ops import sparse_maximum as maximum
from .sparse_manip_ops import sparse_minimum as minimum
from .sparse_manip_ops import sparse_reduce_max as reduce_max
from .sparse_manip_ops import sparse_reduce_max_sparse as reduce_max_sparse
from .sparse_manip_ops import sparse_reduce_sum_sparse as reduce_sum_sparse
from .sparse_manip_ops import sparse_reset_shape as reset_shape
from .sparse_manip_ops import sparse_slice as slice
from .sparse_manip_ops import sparse_split as split
from .sparse_manip_ops import sparse_to_indicator as to_indicator
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

__all__ = ["SparseTensor", "add", "concat", "expand_dims", "eye", "fill_empty_rows", "from_dense",
           "mask", "matmul", "maximum", "minimum", "placeholder", "reduce_max",
           "reduce_max_sparse", "reduce_sum", "reduce_sum_sparse", "reorder", "reset_shape",
           "reshape", "retain", "segment_mean", "segment_sqrt_n", "segment_sum", "slice",
           "softmax", "sparse_dense_matmul", "split", "to_dense", "to_indicator", "transpose"]


def __getattr__(name):
    raise unsupported("tf.sparse.", "tinyflow.tf_sparse", name, {"tf.sparse.": __all__})
