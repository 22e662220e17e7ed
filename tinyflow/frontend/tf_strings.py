"""``tf.strings``: of TensorFlow 1.15's names, the hashing ones here (string_hash_ops.py);
any other ``tf.strings.X`` is an AttributeError saying TinyFlow does not support it.
"""
from __future__ import annotations

from .string_hash_ops import to_hash_bucket, to_hash_bucket_fast
from .unsupported import unsupported

__all__ = ["to_hash_bucket", "to_hash_bucket_fast"]


def __getattr__(name):
    raise unsupported("tf.strings.", "tinyflow.strings", name, {"tf.strings.": __all__})
