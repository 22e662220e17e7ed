"""``tf.contrib.data``: the names TensorFlow 1.15 kept there that ``tf.data.experimental`` has
too (``parallel_interleave``, ``shuffle_and_repeat``, ``CsvDataset``, ``make_csv_dataset``...),
the same functions; any other is an AttributeError saying TinyFlow does not support it."""
from __future__ import annotations

from ..data import experimental as _experimental
from ..unsupported import unsupported

__all__ = ["Counter", "CsvDataset", "bucket_by_sequence_length", "choose_from_datasets",
           "enumerate_dataset", "group_by_window", "make_csv_dataset", "map_and_batch",
           "parallel_interleave", "sample_from_datasets", "shuffle_and_repeat", "unbatch",
           "unique"]

Counter, CsvDataset = _experimental.Counter, _experimental.CsvDataset
bucket_by_sequence_length = _experimental.bucket_by_sequence_length
choose_from_datasets = _experimental.choose_from_datasets
enumerate_dataset, group_by_window = _experimental.enumerate_dataset, _experimental.group_by_window
make_csv_dataset, map_and_batch = _experimental.make_csv_dataset, _experimental.map_and_batch
parallel_interleave = _experimental.parallel_interleave
sample_from_datasets = _experimental.sample_from_datasets
shuffle_and_repeat, unbatch = _experimental.shuffle_and_repeat, _experimental.unbatch
unique = _experimental.unique


def __getattr__(name):
    raise unsupported("tf.contrib.data.", "tinyflow.contrib.data", name,
                      {"tf.contrib.data.": __all__})
