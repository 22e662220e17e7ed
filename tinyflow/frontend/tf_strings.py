"""``tf.strings``: TensorFlow 1.15's string ops (:mod:`tinyflow.frontend.string_ops`); its
Unicode ops (``unicode_decode``...), ``bytes_split``, ``ngrams`` and ``unsorted_segment_join``
are an AttributeError saying TinyFlow does not support them, as is ``to_hash_bucket*``."""
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
    upper,
)
from .string_ops import string_join as join
from .string_ops import string_strip as strip
from .string_ops import string_to_number as to_number
from .unsupported import unsupported

__all__ = ["as_string", "format", "join", "length", "lower", "reduce_join", "regex_full_match",
           "regex_replace", "split", "strip", "substr", "to_number", "upper"]


def __getattr__(name):
    raise unsupported("tf.strings.", "tinyflow.strings", name, {"tf.strings.": __all__})
