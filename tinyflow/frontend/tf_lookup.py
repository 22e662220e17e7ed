"""``tf.lookup``: TensorFlow 1.15's tables (lookup_ops.py); any other ``tf.lookup.X`` (its
``experimental`` tables) is an AttributeError saying TinyFlow does not support it.
"""
from __future__ import annotations

from .lookup_ops import (
    KeyValueTensorInitializer,
    StaticHashTable,
    StaticVocabularyTable,
    TextFileIndex,
    TextFileInitializer,
)
from .unsupported import unsupported

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable",
           "TextFileIndex", "TextFileInitializer"]


def __getattr__(name):
    raise unsupported("tf.lookup.", "tinyflow.lookup", name, {"tf.lookup.": __all__})
