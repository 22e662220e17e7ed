"""``tf.data`` for TF-1 programs (TensorFlow 1.15 semantics, graph mode): ``Dataset`` and
``Iterator``, and ``tf.compat.v1.data``'s functions over them.

A dataset's elements are produced in Python (numpy) when an iterator pulls them; a ``map`` or
``filter`` function of TF ops is traced once and run by the engine on each element; the
iterator's ``get_next()`` is a graph op fed with the element each run (see :mod:`.iterator`).
Modules: :mod:`.dataset` (the datasets), :mod:`.iterator`, :mod:`.functions` (traced
functions), :mod:`.pipeline` (the numpy side), :mod:`.structure` (nested elements).
"""
from __future__ import annotations

from ..unsupported import unsupported
from .dataset import Dataset
from .iterator import Iterator

__all__ = ["AUTOTUNE", "Dataset", "Iterator", "experimental", "get_output_classes",
           "get_output_shapes",
           "get_output_types", "make_initializable_iterator", "make_one_shot_iterator"]


AUTOTUNE = -1  # tf.data.experimental.AUTOTUNE: TinyFlow pulls one element at a time anyway


class _Experimental:
    """``tf.data.experimental``: ``AUTOTUNE`` only (for ``num_parallel_calls`` and
    ``prefetch``)."""

    AUTOTUNE = AUTOTUNE

    def __getattr__(self, name):
        raise unsupported("tf.data.experimental.", "tinyflow.data.experimental", name,
                          {"tf.data.experimental.": ["AUTOTUNE"]})


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
