"""TensorFlow 1.x's MNIST tutorial loader: :func:`read_data_sets` and its :class:`DataSet`.

::

    from tinyflow.examples.tutorials.mnist import input_data
    mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)
    batch_xs, batch_ys = mnist.train.next_batch(100)

It behaves as TensorFlow 1.15's (``tensorflow/contrib/learn/python/learn/datasets/mnist.py``,
which ``input_data`` re-exported):

- ``validation`` is the first ``validation_size`` training examples, ``train`` the rest;
- images are ``(n, 784)`` float32 in [0, 1] (``x * (1 / 255)``), ``(n, 28, 28, 1)`` with
  ``reshape=False``, and keep their uint8 0..255 with ``dtype=uint8``;
- labels are uint8 class ids, or ``(n, 10)`` float64 one-hot rows with ``one_hot=True``;
- :meth:`DataSet.next_batch` shuffles the examples at its first call and at the start of each
  later epoch; a batch that crosses the end of an epoch is the rest of the old epoch followed
  by the start of the new one, and ``epochs_completed`` counts up when that happens.  The
  arrays themselves are reordered, so ``.images`` and ``.labels`` follow the shuffles.

Randomness: TensorFlow seeds numpy's global generator with ``seed`` (fresh entropy when None)
each time a DataSet is made and shuffles with it.  Here each DataSet owns a
``numpy.random.RandomState`` seeded the same way, so a seeded DataSet draws exactly
TensorFlow's orders (when it alone is batched) without touching numpy's global state.

Files: TensorFlow's four names (``train-images-idx3-ubyte.gz``...; the same names without
``.gz`` too) are looked for in ``train_dir``, then where :mod:`tinyflow.datasets` looks (the
``mnist`` subfolder of ``train_dir``, of ``$TINYFLOW_DATA`` and of ``~/.cache/tinyflow``), and
used as they are.  Missing ones are downloaded into ``train_dir`` from ``source_url`` and
checked against MNIST's published SHA-256 before they are moved into place.  A ``source_url``
naming ``fashion`` means Fashion-MNIST: its checksums, its ``fashion-mnist`` folders, and
Debian's ``/usr/share/datasets/fashion-mnist``.  The default ``source_url`` means TinyFlow's
MNIST mirrors (TensorFlow's among them) or ``$TINYFLOW_MNIST_MIRROR``.
"""
from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from tinyflow.datasets import formats, sources
from tinyflow.frontend import dtypes

__all__ = [
    "DEFAULT_SOURCE_URL",
    "DataSet",
    "Datasets",
    "dense_to_one_hot",
    "load_mnist",
    "read_data_sets",
]

#: TensorFlow's default download location (the CVDF mirror of MNIST).
DEFAULT_SOURCE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"
# TensorFlow reduces an op seed modulo 2**31 - 1 before numpy sees it.
_MAX_SEED = 2**31 - 1
_FAKE_EXAMPLES = 10000
_PIXELS = 28 * 28


class Datasets(NamedTuple):
    """The three splits :func:`read_data_sets` returns."""

    train: DataSet
    validation: DataSet
    test: DataSet


def dense_to_one_hot(labels_dense: np.ndarray, num_classes: int) -> np.ndarray:
    """Turn class ids into one-hot rows.

    Parameters
    ----------
    labels_dense : numpy.ndarray
        ``(n,)`` integer class ids below ``num_classes``.
    num_classes : int
        Length of each row.

    Returns
    -------
    numpy.ndarray
        ``(n, num_classes)`` float64, 1 at each label's class and 0 elsewhere.
    """
    labels_dense = np.asarray(labels_dense).ravel()
    one_hot = np.zeros((labels_dense.shape[0], num_classes))
    one_hot[np.arange(labels_dense.shape[0]), labels_dense] = 1
    return one_hot


def _image_dtype(dtype: object) -> dtypes.DType:
    """``dtype`` as a DType, which must be uint8 or float32 (TensorFlow's TypeError if not)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype not in (dtypes.uint8, dtypes.float32):
        raise TypeError(f"Invalid image dtype {dtype!r}, expected uint8 or float32")
    return dtype


class DataSet:
    """One split, served in mini-batches with TensorFlow 1.x's epoch rules.

    Parameters
    ----------
    images : numpy.ndarray
        ``(n, rows, cols, 1)`` uint8 pixels (any shape when ``reshape`` is False).
    labels : numpy.ndarray
        ``n`` labels (class ids or one-hot rows), kept as they are.
    fake_data : bool, optional
        Make a stand-in of 10,000 examples that only ``next_batch(..., fake_data=True)`` serves.
    one_hot : bool, optional
        Whether fake labels are one-hot rows (used only with ``fake_data``).
    dtype : tf.DType or str or numpy.dtype, optional
        ``float32`` scales the pixels into [0, 1]; ``uint8`` keeps 0..255.
    reshape : bool, optional
        Flatten each image into a row of ``rows * cols`` values.
    seed : int, optional
        Seed of the shuffles; None draws one from the system.

    Raises
    ------
    TypeError
        If ``dtype`` is neither uint8 nor float32.
    ValueError
        If images and labels differ in number, or ``reshape`` meets images that are not
        ``(n, rows, cols, 1)``.
    """

    def __init__(self, images, labels, fake_data: bool = False, one_hot: bool = False,
                 dtype: object = dtypes.float32, reshape: bool = True,
                 seed: int | None = None) -> None:
        self._rng = np.random.RandomState(None if seed is None else seed % _MAX_SEED)
        dtype = _image_dtype(dtype)
        self.one_hot = one_hot
        if fake_data:
            self._num_examples = _FAKE_EXAMPLES
        else:
            if images.shape[0] != labels.shape[0]:
                raise ValueError(f"images.shape: {images.shape} labels.shape: {labels.shape}")
            self._num_examples = images.shape[0]
            if reshape:
                if images.ndim != 4 or images.shape[3] != 1:
                    raise ValueError(f"reshape needs (n, rows, cols, 1) images, got shape "
                                     f"{images.shape}")
                images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
            if dtype == dtypes.float32:
                # TensorFlow multiplies by 1/255 (not divides): the same float32 values
                images = np.multiply(images.astype(np.float32), 1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    @property
    def images(self):
        """numpy.ndarray: The examples, in their current (shuffled) order."""
        return self._images

    @property
    def labels(self):
        """numpy.ndarray: The labels, in the same order as :attr:`images`."""
        return self._labels

    @property
    def num_examples(self) -> int:
        """int: Number of examples in the split."""
        return self._num_examples

    @property
    def epochs_completed(self) -> int:
        """int: How many times :meth:`next_batch` has crossed the end of the examples."""
        return self._epochs_completed

    def shard(self, index: int, count: int) -> DataSet:
        """The ``index``-th of ``count`` equal shares of the examples (every ``count``-th one
        from ``index``, as ``tf.data.Dataset.shard``), for rank ``index`` of ``count`` in
        data-parallel training (``hvd.rank()``, ``hvd.size()``).

        Parameters
        ----------
        index : int
            Which share, ``0 <= index < count``.
        count : int
            How many shares (the world size).

        Returns
        -------
        DataSet
            A new split with those examples, already in [0, 1] floats or as they were, its
            own shuffling seeded from this one's generator.

        Raises
        ------
        ValueError
            If ``index`` is not in ``[0, count)``, or the split is fake data.
        """
        if not 0 <= index < count:
            raise ValueError(f"shard index must be in [0, {count}), got {index}")
        if self._images is None or not hasattr(self._images, "shape"):
            raise ValueError("fake data has no examples to shard")
        shard = DataSet.__new__(DataSet)
        shard.__dict__.update(self.__dict__)
        shard._images, shard._labels = self._images[index::count], self._labels[index::count]
        shard._num_examples = len(shard._images)
        shard._rng = np.random.RandomState(self._rng.randint(_MAX_SEED))
        shard._epochs_completed = shard._index_in_epoch = 0
        return shard

    def next_batch(self, batch_size: int, fake_data: bool = False, shuffle: bool = True):
        """Return the next ``batch_size`` examples and their labels.

        Parameters
        ----------
        batch_size : int
            Number of examples (a batch larger than the split is cut short, as in TF).
        fake_data : bool, optional
            Return ``batch_size`` lists of 784 ones and fake labels instead.
        shuffle : bool, optional
            Shuffle at the first call and at the start of each epoch.

        Returns
        -------
        images, labels : numpy.ndarray
            The batch; when it crosses an epoch's end, the rest of the old epoch then the
            start of the new one.
        """
        if fake_data:
            fake_label = [1] + [0] * 9 if self.one_hot else 0
            return ([[1] * _PIXELS for _ in range(batch_size)],
                    [fake_label for _ in range(batch_size)])
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffle()
        if start + batch_size <= self._num_examples:
            self._index_in_epoch += batch_size
            return (self._images[start:self._index_in_epoch],
                    self._labels[start:self._index_in_epoch])
        self._epochs_completed += 1
        images_rest, labels_rest = self._images[start:], self._labels[start:]
        if shuffle:
            self._shuffle()
        self._index_in_epoch = batch_size - (self._num_examples - start)
        end = self._index_in_epoch
        return (np.concatenate((images_rest, self._images[:end]), axis=0),
                np.concatenate((labels_rest, self._labels[:end]), axis=0))

    def _shuffle(self) -> None:
        order = np.arange(self._num_examples)
        self._rng.shuffle(order)
        self._images = self._images[order]
        self._labels = self._labels[order]


def _read_files(train_dir: str | os.PathLike, source_url: str
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Find or download the four files; return train and test images ``(n, 28, 28, 1)`` and
    labels ``(n,)``, all uint8."""
    spec = sources.FASHION_MNIST_SPEC if "fashion" in source_url.lower() else sources.MNIST_SPEC
    mirrors = None if source_url == DEFAULT_SOURCE_URL else [source_url]
    files = []
    for path in sources.locate(spec, train_dir, mirrors, download=True):
        print("Extracting", path)
        files.append(formats.read_idx(path))
    train_images, train_labels, test_images, test_labels = files
    formats.check_idx_pair(train_images, train_labels)
    formats.check_idx_pair(test_images, test_labels)
    return (train_images.array[..., np.newaxis], train_labels.array,
            test_images.array[..., np.newaxis], test_labels.array)


def read_data_sets(train_dir: str | os.PathLike, fake_data: bool = False,
                   one_hot: bool = False, dtype: object = dtypes.float32, reshape: bool = True,
                   validation_size: int = 5000, seed: int | None = None,
                   source_url: str = DEFAULT_SOURCE_URL) -> Datasets:
    """Load MNIST (or Fashion-MNIST) as TensorFlow 1.x's tutorials did.

    Parameters
    ----------
    train_dir : str or os.PathLike
        Folder of the four files; missing ones are downloaded into it.
    fake_data : bool, optional
        Return three stand-in splits that serve fake batches, reading no file.
    one_hot : bool, optional
        Labels as ``(n, 10)`` float64 one-hot rows instead of uint8 class ids.
    dtype : tf.DType or str or numpy.dtype, optional
        ``float32`` (pixels scaled into [0, 1]) or ``uint8`` (0..255).
    reshape : bool, optional
        Images as ``(n, 784)`` rows instead of ``(n, 28, 28, 1)``.
    validation_size : int, optional
        How many of the 60,000 training examples (the first ones) form ``validation``.
    seed : int, optional
        Seed of each split's shuffles; None draws one from the system.
    source_url : str, optional
        Base URL the files are downloaded from; empty means the default.

    Returns
    -------
    Datasets
        ``train``, ``validation`` and ``test`` :class:`DataSet` splits.

    Raises
    ------
    ValueError
        If ``validation_size`` is not between 0 and the number of training examples.
    TypeError
        If ``dtype`` is neither uint8 nor float32.
    tinyflow.datasets.DatasetError
        If a file is missing and cannot be downloaded (or fails its checksum), or is corrupt.
    """
    _image_dtype(dtype)  # fail before any download
    if fake_data:
        def fake() -> DataSet:
            return DataSet([], [], fake_data=True, one_hot=one_hot, dtype=dtype, seed=seed)
        return Datasets(train=fake(), validation=fake(), test=fake())
    train_images, train_labels, test_images, test_labels = _read_files(
        train_dir, source_url or DEFAULT_SOURCE_URL)
    if one_hot:
        train_labels = dense_to_one_hot(train_labels, formats.NUM_CLASSES)
        test_labels = dense_to_one_hot(test_labels, formats.NUM_CLASSES)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError(f"Validation size should be between 0 and {len(train_images)}. "
                         f"Received: {validation_size}.")
    options = {"dtype": dtype, "reshape": reshape, "seed": seed}
    return Datasets(
        train=DataSet(train_images[validation_size:], train_labels[validation_size:],
                      **options),
        validation=DataSet(train_images[:validation_size], train_labels[:validation_size],
                           **options),
        test=DataSet(test_images, test_labels, **options))


def load_mnist(train_dir: str | os.PathLike = "MNIST-data") -> Datasets:
    """:func:`read_data_sets` with its defaults, as TensorFlow's ``load_mnist``."""
    return read_data_sets(train_dir)
