"""``tf.contrib.lookup`` (TensorFlow 1.15): its tables are tf.lookup's (``HashTable`` is
``StaticHashTable``, ``MutableHashTable`` tf.lookup.experimental's), with the vocabulary
helpers ``index_table_from_file`` / ``index_table_from_tensor`` and
``index_to_string_table_from_file`` / ``_from_tensor``."""
from ..lookup_ops import (
    KeyValueTensorInitializer,
    StaticHashTable,
    TextFileIndex,
    TextFileInitializer,
    index_table_from_file,
    index_table_from_tensor,
    index_to_string_table_from_file,
    index_to_string_table_from_tensor,
)
from ..mutable_tables import MutableHashTable
from ..unsupported import unsupported

HashTable = StaticHashTable

__all__ = ["HashTable", "KeyValueTensorInitializer", "MutableHashTable", "TextFileIndex",
           "TextFileInitializer", "index_table_from_file", "index_table_from_tensor",
           "index_to_string_table_from_file", "index_to_string_table_from_tensor"]


def __getattr__(name):
    raise unsupported("tf.contrib.lookup.", "tinyflow.contrib.lookup", name,
                      {"tf.contrib.lookup.": __all__})
