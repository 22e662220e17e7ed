"""``tf.float32``, ``tf.int64``...: the graph layer's dtypes (:mod:`tinyflow.nnvm.dtypes`)."""
from ..nnvm.dtypes import *
from ..nnvm.dtypes import TORCH_NAMES, float16, float64  # noqa: F401

double, half = float64, float16  # TensorFlow's other names of the two
__all__ = ["DType", "as_dtype", "bool", "double", "float16", "float32", "float64", "half", "int8",
           "int16", "int32", "int64", "string", "uint8"]
