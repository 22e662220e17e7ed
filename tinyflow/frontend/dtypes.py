"""``tf.float32``, ``tf.int64``...: the graph layer's dtypes (:mod:`tinyflow.nnvm.dtypes`)."""
from ..nnvm.dtypes import *
from ..nnvm.dtypes import TORCH_NAMES, __all__  # noqa: F401
