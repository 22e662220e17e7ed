"""``tf.io``: of TensorFlow 1.15's ``tf.io`` TinyFlow has ``gfile`` (the file API in lower
case, :mod:`tinyflow.io.gfile`), ``decode_raw`` and the TFRecord files' writer, iterator and
options (``tf.python_io``'s); any other ``tf.io.X`` is an AttributeError saying TinyFlow does
not support it."""
from ..python_io import TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator
from ..readers import decode_raw
from ..unsupported import unsupported
from . import gfile

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter", "decode_raw", "gfile",
           "tf_record_iterator"]


def __getattr__(name):
    raise unsupported("tf.io.", "tinyflow.io", name, {"tf.io.": __all__})
