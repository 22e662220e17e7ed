"""``tf.io``: of TensorFlow 1.15's ``tf.io`` TinyFlow has ``gfile`` (the file API in lower
case, :mod:`tinyflow.io.gfile`), ``decode_raw``, the TFRecord files' writer, iterator and
options (``tf.python_io``'s), the parsing of ``tf.train.Example`` protos (``parse_example``,
``parse_single_example`` and their feature configurations), files read, matched and written
(``read_file``, ``matching_files``, ``write_file``), tensors as ``TensorProto`` bytes
(``serialize_tensor``, ``parse_tensor``), ``write_graph`` (``tf.train.write_graph``),
``decode_base64`` and ``encode_base64``, the image files (``decode_png``, ``encode_png``,
``decode_bmp``, ``decode_image``, ``is_jpeg``, ``extract_jpeg_shape``); any other ``tf.io.X`` is an AttributeError saying
TinyFlow does not support it."""
from ..graph_util import write_graph
from ..image_codecs import (
    decode_bmp,
    decode_image,
    decode_png,
    encode_png,
    extract_jpeg_shape,
    is_jpeg,
)
from ..io_ops import matching_files, parse_tensor, serialize_tensor, write_file
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
           "TFRecordOptions", "TFRecordWriter", "VarLenFeature", "decode_base64", "decode_bmp",
           "decode_csv", "decode_image", "decode_png", "decode_raw", "encode_base64",
           "encode_png",
           "extract_jpeg_shape", "gfile", "is_jpeg", "matching_files", "parse_example",
           "parse_single_example", "parse_single_sequence_example", "parse_tensor",
           "read_file", "serialize_tensor", "tf_record_iterator", "write_file", "write_graph"]


def __getattr__(name):
    raise unsupported("tf.io.", "tinyflow.io", name, {"tf.io.": __all__})
