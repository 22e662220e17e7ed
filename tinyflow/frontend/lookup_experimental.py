"""``tf.lookup.experimental`` (TensorFlow 1.15): ``MutableHashTable`` and ``DenseHashTable``
(mutable_tables.py); any other name is an AttributeError saying TinyFlow does not support
it."""
from .mutable_tables import DenseHashTable, MutableHashTable
from .unsupported import unsupported

__all__ = ["DenseHashTable", "MutableHashTable"]


def __getattr__(name):
    raise unsupported("tf.lookup.experimental.", "tinyflow.lookup.experimental", name,
                      {"tf.lookup.experimental.": __all__})
