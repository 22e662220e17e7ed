"""``tf.data`` for TF-1 programs (TensorFlow 1.15 semantics, graph mode): ``Dataset`` and
``Iterator``, and ``tf.compat.v1.data``'s functions over them.

A dataset's elements are produced in Python (numpy) when an iterator pulls them; a ``map`` or
``filter`` function of TF ops is traced once and run by the engine on each element; the
iterator's ``get_next()`` is a graph op fed with the element each run (see :mod:`.iterator`).
Modules: :mod:`.dataset` (the datasets), :mod:`.iterator`, :mod:`.functions` (traced
functions), :mod:`.pipeline` (the numpy side), :mod:`.structure` (nested elements),
:mod:`.grouping` (``group_by_window``, ``bucket_by_sequence_length``), :mod:`.options`
(``tf.data.Options``, which have no effect here), :mod:`.directed`
(``choose_from_datasets``, ``sample_from_datasets``), :mod:`.readers` (``TFRecordDataset``,
``TextLineDataset``), :mod:`.csv_datasets` (``CsvDataset``, ``make_csv_dataset``).
"""
from __future__ import annotations

import sys

from ..unsupported import unsupported
from . import directed, grouping
from .csv_datasets import CsvDataset, make_csv_dataset
from .dataset import Dataset
from .iterator import Iterator
from .options import (
    DistributeOptions,
    MapVectorizationOptions,
    OptimizationOptions,
    Options,
    StatsOptions,
    ThreadingOptions,
)
from .readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset

__all__ = ["AUTOTUNE", "Dataset", "FixedLengthRecordDataset", "Iterator", "Options",
           "TFRecordDataset",
           "TextLineDataset",
           "experimental", "get_output_classes",
           "get_output_shapes",
           "get_output_types", "make_initializable_iterator", "make_one_shot_iterator"]


AUTOTUNE = -1  # tf.data.experimental.AUTOTUNE: TinyFlow pulls one element at a time anyway


class _Experimental:
    """``tf.data.experimental``: ``AUTOTUNE`` (for ``num_parallel_calls`` and ``prefetch``),
    ``Counter`` and the transformations TF 1.15 kept there, for ``dataset.apply(...)``."""

    AUTOTUNE = AUTOTUNE
    NAMES = ("AUTOTUNE", "Counter", "CsvDataset", "DistributeOptions",
             "MapVectorizationOptions", "OptimizationOptions", "StatsOptions",
             "ThreadingOptions", "bucket_by_sequence_length", "choose_from_datasets",
             "enumerate_dataset", "group_by_window", "make_csv_dataset", "map_and_batch",
             "parallel_interleave", "sample_from_datasets", "shuffle_and_repeat",
             "take_while", "unbatch", "unique")
    DistributeOptions, MapVectorizationOptions = DistributeOptions, MapVectorizationOptions
    OptimizationOptions, StatsOptions = OptimizationOptions, StatsOptions
    ThreadingOptions = ThreadingOptions
    group_by_window = staticmethod(grouping.group_by_window)
    bucket_by_sequence_length = staticmethod(grouping.bucket_by_sequence_length)
    choose_from_datasets = staticmethod(directed.choose_from_datasets)
    sample_from_datasets = staticmethod(directed.sample_from_datasets)
    CsvDataset, make_csv_dataset = CsvDataset, staticmethod(make_csv_dataset)

    @staticmethod
    def Counter(start=0, step=1, dtype="int64") -> Dataset:
        """``start``, ``start + step``... without end."""
        return Dataset.range(start, sys.maxsize if step > 0 else -sys.maxsize, step,
                             output_type=dtype)

    @staticmethod
    def shuffle_and_repeat(buffer_size, count=None, seed=None):
        """``lambda d: d.shuffle(buffer_size, seed).repeat(count)`` (a new order each time)."""
        return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)

    @staticmethod
    def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                            buffer_output_elements=None, prefetch_input_elements=None):
        """``lambda d: d.interleave(map_func, cycle_length, block_length)``: TF's order
        (``sloppy=True`` allows any order; TinyFlow's stays deterministic)."""
        return lambda dataset: dataset.interleave(map_func, cycle_length, block_length)

    @staticmethod
    def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                      num_parallel_calls=None):
        """``lambda d: d.map(map_func).batch(batch_size, drop_remainder)``."""
        return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder)

    @staticmethod
    def enumerate_dataset(start=0):
        return lambda dataset: dataset.enumerate(start)

    @staticmethod
    def unbatch():
        return lambda dataset: dataset.unbatch()

    @staticmethod
    def unique():
        return lambda dataset: dataset.unique()

    @staticmethod
    def take_while(predicate):
        return lambda dataset: dataset.take_while(predicate)

    def __getattr__(self, name):
        raise unsupported("tf.data.experimental.", "tinyflow.data.experimental", name,
                          {"tf.data.experimental.": list(self.NAMES)})

    def __dir__(self):
        return list(self.NAMES)


experimental = _Experimental()


def make_one_shot_iterator(dataset) -> Iterator:
    """``dataset.make_one_shot_iterator()`` (``tf.compat.v1.data.make_one_shot_iterator``)."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None) -> Iterator:
    """``dataset.make_initializable_iterator()``."""
    return dataset.make_initializable_iterator(shared_name)


def get_output_shapes(dataset_or_iterator):
    """The element's structure of static shapes (TensorShape)."""
    return dataset_or_iterator.output_shapes


def get_output_types(dataset_or_iterator):
    """The element's structure of dtypes."""
    return dataset_or_iterator.output_types


def get_output_classes(dataset_or_iterator):
    """The element's structure of component classes (tensors)."""
    return dataset_or_iterator.output_classes


def __getattr__(name):
    raise unsupported("tf.data.", "tinyflow.data", name, {"tf.data.": __all__})
