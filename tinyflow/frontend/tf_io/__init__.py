"""``tf.io``: of TensorFlow 1.15's ``tf.io`` TinyFlow has ``gfile`` (the file API in lower
case, :mod:`tinyflow.io.gfile`), ``decode_raw``, the TFRecord files' writer, iterator and
options (``tf.python_io``'s) and the parsing of ``tf.train.Example`` protos (``parse_example``,
``parse_single_example`` and their feature configurations), ``decode_base64`` and
``encode_base64``; any other ``tf.io.X`` is an AttributeError saying TinyFlow does
not support it."""
from ..parsing_ops import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    VarLenFeature,
    decode_csv,
    parse_example,
    parse_single_example,
    parse_single_sequence_example,
)
from ..python_io import TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator
from ..readers import decode_raw, read_file
from ..string_ops import decode_base64, encode_base64
from ..unsupported import unsupported
from . import gfile

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "TFRecordCompressionType",
           "TFRecordOptions", "TFRecordWriter", "VarLenFeature", "decode_base64", "decode_csv", "decode_raw", "encode_base64",
           "gfile", "parse_example", "parse_single_example", "parse_single_sequence_example",
           "read_file", "tf_record_iterator"]


def __getattr__(name):
    raise unsupported("tf.io.", "tinyflow.io", name, {"tf.io.": __all__})
