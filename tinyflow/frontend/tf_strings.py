"""``tf.strings``: TensorFlow 1.15's string ops (:mod:`tinyflow.frontend.string_ops`) and its
hashing (:mod:`tinyflow.frontend.string_hash_ops`: ``to_hash_bucket``, ``to_hash_bucket_fast``);
``unicode_decode`` decodes a scalar string (of more, TF's result is a RaggedTensor, which
TinyFlow lacks).  Its other Unicode ops (``unicode_encode``, ``unicode_split``...),
``bytes_split``, ``ngrams``, ``unsorted_segment_join`` and ``to_hash_bucket_strong`` are an
AttributeError saying TinyFlow does not support them."""
from .string_hash_ops import to_hash_bucket, to_hash_bucket_fast
from .string_ops import (
    as_string,
    format,
    length,
    lower,
    reduce_join,
    regex_full_match,
    regex_replace,
    split,
    substr,
    unicode_decode,
    upper,
)
from .string_ops import string_join as join
from .string_ops import string_strip as strip
from .string_ops import string_to_number as to_number
from .unsupported import unsupported

__all__ = ["as_string", "format", "join", "length", "lower", "reduce_join", "regex_full_match",
           "regex_replace", "split", "strip", "substr", "to_hash_bucket", "to_hash_bucket_fast",
           "to_number", "unicode_decode", "upper"]


def __getattr__(name):
    raise unsupported("tf.strings.", "tinyflow.strings", name, {"tf.strings.": __all__})
