"""MNIST, Fashion-MNIST and CIFAR-10 loaders in the style of TensorFlow 1.x tutorials.

Each ``get_*`` function returns a :class:`Datasets` with ``.train`` and ``.test``
splits; a split holds float32 ``images`` in [0, 1] (NCHW, or flattened), float32
``labels`` (class ids, or one-hot) and ``next_batch(n)``, which walks through the
examples in a fresh random order each epoch, as ``mnist.train.next_batch`` did.

Files are looked for, in order, in ``data_dir`` (the files directly in it, or in
``data_dir/<dataset>``), in ``$TINYFLOW_DATA/<dataset>``, in
``~/.cache/tinyflow/<dataset>`` and, for Fashion-MNIST, in the folder of Debian's
``dataset-fashion-mnist`` package. ``<dataset>`` is ``mnist``, ``fashion-mnist`` or
``cifar-10``. Missing files are downloaded from :data:`MNIST_MIRRORS`,
:data:`FASHION_MNIST_MIRRORS` or :data:`CIFAR10_MIRRORS` (overridable with
the ``mirrors=`` argument or the ``TINYFLOW_MNIST_MIRROR``,
``TINYFLOW_FASHION_MNIST_MIRROR`` and ``TINYFLOW_CIFAR10_MIRROR`` environment
variables, each a comma or space separated list of base URLs), checked against
:data:`SHA256` and moved into place only once complete and verified. Downloads go
to ``data_dir`` when given, else to the first of ``$TINYFLOW_DATA/<dataset>`` and
``~/.cache/tinyflow/<dataset>``.

The package has one module per job:

- :mod:`~tinyflow.datasets.batches`: :class:`DataSet` and :class:`Datasets` (serving
  shuffled batches), and turning pixels and class ids into float32 images and labels.
- :mod:`~tinyflow.datasets.sources`: the data set specs (files, mirrors, SHA-256s,
  :data:`SYSTEM_DATA_DIRS`), finding files and downloading them. The tables are re-exported
  here but read there: to change them at run time, change ``sources``' attributes.
- :mod:`~tinyflow.datasets.formats`: parsing IDX (MNIST) and CIFAR-10 files, and
  :class:`DatasetError`.
- :mod:`~tinyflow.datasets.loaders`: ``get_mnist``, ``get_fashion_mnist`` and
  ``get_cifar10``, which tie the three together.

This package depends on the standard library and numpy only (tqdm, when installed,
draws the download progress bar).
"""

from .batches import DataSet, Datasets
from .formats import DatasetError
from .loaders import get_cifar10, get_fashion_mnist, get_mnist
from .sources import (
    CIFAR10_MIRRORS,
    FASHION_MNIST_MIRRORS,
    MNIST_MIRRORS,
    SHA256,
    SYSTEM_DATA_DIRS,
)

__all__ = [
    "CIFAR10_MIRRORS",
    "FASHION_MNIST_MIRRORS",
    "MNIST_MIRRORS",
    "SHA256",
    "SYSTEM_DATA_DIRS",
    "DataSet",
    "DatasetError",
    "Datasets",
    "get_cifar10",
    "get_fashion_mnist",
    "get_mnist",
]
