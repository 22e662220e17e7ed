"""``tf.keras.datasets``: TF 1.15's data sets, each a module with ``load_data`` (imdb and
reuters with ``get_word_index``), downloaded once into ``~/.keras/datasets`` (or
``$KERAS_HOME/datasets``) by ``tf.keras.utils.get_file``.

The loaders are :mod:`.images` (mnist, fashion_mnist, cifar10, cifar100) and
:mod:`.sequences` (imdb, reuters, boston_housing); the modules of TF's names re-export them.
"""
from __future__ import annotations

from ...unsupported import unsupported
from . import boston_housing, cifar10, cifar100, fashion_mnist, imdb, mnist, reuters

__all__ = ["boston_housing", "cifar10", "cifar100", "fashion_mnist", "imdb", "mnist",
           "reuters"]


def __getattr__(name):
    raise unsupported("tf.keras.datasets.", "tinyflow.keras.datasets", name,
                      {"tf.keras.datasets.": __all__})


def __dir__():
    return sorted(__all__)
