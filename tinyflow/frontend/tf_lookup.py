"""``tf.lookup``: TensorFlow 1.15's tables (lookup_ops.py) and ``tf.lookup.experimental``'s
``MutableHashTable`` (mutable_tables.py); any other ``tf.lookup.X`` is an AttributeError saying
TinyFlow does not support it.
"""
from __future__ import annotations

from . import lookup_experimental as experimental
from .lookup_ops import (
    KeyValueTensorInitializer,
    StaticHashTable,
    StaticVocabularyTable,
    TextFileIndex,
    TextFileInitializer,
)
from .unsupported import unsupported

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable",
           "TextFileIndex", "TextFileInitializer", "experimental"]


def __getattr__(name):
    raise unsupported("tf.lookup.", "tinyflow.lookup", name, {"tf.lookup.": __all__})
