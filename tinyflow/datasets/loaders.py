"""The loaders: find or download a data set's files, parse them, serve them in batches."""

from __future__ import annotations

import os
from collections.abc import Sequence

from .batches import Datasets, make_datasets
from .formats import check_idx_pair, read_cifar10, read_idx
from .sources import CIFAR10_SPEC, FASHION_MNIST_SPEC, MNIST_SPEC, Spec, locate

__all__ = [
    "get_cifar10",
    "get_fashion_mnist",
    "get_mnist",
]


def get_mnist(flatten: bool = False, onehot: bool = False,
              data_dir: str | os.PathLike | None = None, *, seed: int = 0,
              mirrors: Sequence[str] | None = None, download: bool = True) -> Datasets:
    """Load MNIST, downloading missing files.

    Parameters
    ----------
    flatten : bool, optional
        Return images as ``(n, 784)`` rows instead of ``(n, 1, 28, 28)``.
    onehot : bool, optional
        Return labels as ``(n, 10)`` one-hot rows instead of ``(n,)`` class ids.
    data_dir : str or os.PathLike, optional
        Folder searched first (its files, then its ``mnist`` subfolder); downloads
        go there when given.
    seed : int, optional
        Seed of the batch order of both splits.
    mirrors : sequence of str, optional
        Base URLs to download from, replacing ``$TINYFLOW_MNIST_MIRROR`` and
        :data:`MNIST_MIRRORS`.
    download : bool, optional
        Whether to download missing files; if False they are an error.

    Returns
    -------
    Datasets
        60,000 training and 10,000 test examples, images float32 in [0, 1],
        labels float32.

    Raises
    ------
    DatasetError
        If files are missing and cannot be downloaded, or are corrupt.
    """
    return _load_idx_dataset(MNIST_SPEC, flatten, onehot, data_dir, seed, mirrors, download)


def get_fashion_mnist(flatten: bool = False, onehot: bool = False,
                      data_dir: str | os.PathLike | None = None, *, seed: int = 0,
                      mirrors: Sequence[str] | None = None,
                      download: bool = True) -> Datasets:
    """Load Fashion-MNIST, downloading missing files: :func:`get_mnist`'s parameters,
    return value and errors, for Zalando's drop-in replacement of MNIST (same format and size).

    It also looks in :data:`SYSTEM_DATA_DIRS` (Debian's ``dataset-fashion-mnist`` package
    installs the files in ``/usr/share/datasets/fashion-mnist``) and in the ``fashion-mnist``
    subfolder of ``data_dir``; ``mirrors`` replaces ``$TINYFLOW_FASHION_MNIST_MIRROR`` and
    :data:`FASHION_MNIST_MIRRORS`.
    """
    return _load_idx_dataset(FASHION_MNIST_SPEC, flatten, onehot, data_dir, seed, mirrors,
                             download)


def get_cifar10(flatten: bool = False, onehot: bool = False,
                data_dir: str | os.PathLike | None = None, *, seed: int = 0,
                mirrors: Sequence[str] | None = None, download: bool = True) -> Datasets:
    """Load CIFAR-10 (python version), downloading it if missing.

    Either ``cifar-10-python.tar.gz`` or its extracted ``cifar-10-batches-py``
    folder is accepted.

    Parameters
    ----------
    flatten : bool, optional
        Return images as ``(n, 3072)`` rows (channel-major, as in the files)
        instead of ``(n, 3, 32, 32)``.
    onehot, seed : optional
        As in :func:`get_mnist`.
    data_dir : str or os.PathLike, optional
        Folder searched first (its files, then its ``cifar-10`` subfolder);
        downloads go there when given.
    mirrors : sequence of str, optional
        Base URLs replacing ``$TINYFLOW_CIFAR10_MIRROR`` and :data:`CIFAR10_MIRRORS`.
    download : bool, optional
        Whether to download the archive if missing; if False that is an error.

    Returns
    -------
    Datasets
        50,000 training and 10,000 test examples, images float32 in [0, 1],
        labels float32.

    Raises
    ------
    DatasetError
        If the data is missing and cannot be downloaded, or is corrupt.
    """
    (path,) = locate(CIFAR10_SPEC, data_dir, mirrors, download)
    train_images, train_labels, test_images, test_labels = read_cifar10(path)
    return make_datasets(train_images, train_labels, test_images, test_labels,
                         (3, 32, 32), flatten, onehot, seed)


def _load_idx_dataset(spec: Spec, flatten: bool, onehot: bool,
                      data_dir: str | os.PathLike | None, seed: int,
                      mirrors: Sequence[str] | None, download: bool) -> Datasets:
    train_images, train_labels, test_images, test_labels = (
        read_idx(path) for path in locate(spec, data_dir, mirrors, download))
    for images, labels in ((train_images, train_labels), (test_images, test_labels)):
        check_idx_pair(images, labels)
    return make_datasets(train_images.array, train_labels.array, test_images.array,
                         test_labels.array, (1, 28, 28), flatten, onehot, seed)
