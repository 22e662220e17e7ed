"""The image data sets of ``tf.keras.datasets`` (mnist, fashion_mnist, cifar10, cifar100),
read as TF 1.15 reads them: the same files, URLs, hashes and cache folders, the same arrays.
A pickled CIFAR batch is read by :func:`tinyflow.datasets.safe_pickle.read_pickle`, never by
``pickle`` (a downloaded file must not run code)."""
from __future__ import annotations

import gzip
import os
import zlib

import numpy as np

from ....datasets.formats import DatasetError
from ....datasets.safe_pickle import read_npz, read_pickle
from ....nnvm import host_memory
from .. import backend
from ..data_utils import get_file

__all__ = ["KERAS_DATASETS_URL", "load_cifar10", "load_cifar100", "load_fashion_mnist",
           "load_mnist", "npz_arrays"]

#: Where TF 1.15 downloads Keras' data sets from (its ``origin_folder``).
KERAS_DATASETS_URL = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
_CIFAR_URL = "https://www.cs.toronto.edu/~kriz/"


def npz_arrays(path: str, *names: str) -> list[np.ndarray]:
    """The named arrays of a ``.npz`` (read safely), a missing one a DatasetError."""
    arrays = read_npz(path)
    missing = [name for name in names if name not in arrays]
    if missing:
        raise DatasetError(f"{path}: no array {', '.join(missing)} (it has {sorted(arrays)})")
    return [arrays[name] for name in names]


def load_mnist(path="mnist.npz"):
    """``tf.keras.datasets.mnist.load_data``: MNIST as uint8 arrays.

    Parameters
    ----------
    path : str
        The file's name in ``~/.keras/datasets`` (``$KERAS_HOME/datasets``).

    Returns
    -------
    tuple
        ``(x_train, y_train), (x_test, y_test)``: uint8 ``(60000, 28, 28)`` and ``(60000,)``,
        ``(10000, 28, 28)`` and ``(10000,)``.
    """
    path = get_file(path, origin=KERAS_DATASETS_URL + "mnist.npz",
                    file_hash="731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1")
    x_train, y_train, x_test, y_test = npz_arrays(path, "x_train", "y_train", "x_test",
                                                  "y_test")
    return (x_train, y_train), (x_test, y_test)


def _idx_payload(path: str, offset: int) -> np.ndarray:
    """The bytes of a gzipped IDX file after its ``offset``-byte header, as TF reads them."""
    limit, source = host_memory.host_available_bytes()
    chunks, total = [], 0
    try:
        with gzip.open(path, "rb") as stream:
            # read in chunks: a gzip bomb stops at the host's free memory, not after it
            while chunk := stream.read(1 << 20):
                total += len(chunk)
                if total > limit:
                    raise DatasetError(f"{path}: uncompressed, more than the {limit} bytes "
                                       f"available ({source})")
                chunks.append(chunk)
    except (OSError, EOFError, zlib.error) as exc:
        raise DatasetError(f"cannot read {path}: {exc} (truncated or corrupt; delete it to "
                           "download it again)") from exc
    data = b"".join(chunks)
    if len(data) < offset:
        raise DatasetError(f"{path}: {len(data)} bytes, shorter than the IDX header")
    return np.frombuffer(data, np.uint8, offset=offset)


def load_fashion_mnist():
    """``tf.keras.datasets.fashion_mnist.load_data``: Fashion-MNIST as uint8 arrays (TF 1.15
    checks no hash for these four files), cached in ``~/.keras/datasets/fashion-mnist``.

    Returns
    -------
    tuple
        ``(x_train, y_train), (x_test, y_test)`` as :func:`load_mnist`'s.
    """
    dirname = os.path.join("datasets", "fashion-mnist")
    files = ["train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz",
             "t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz"]
    paths = [get_file(name, origin=KERAS_DATASETS_URL + name, cache_subdir=dirname)
             for name in files]
    y_train, y_test = _idx_payload(paths[0], 8), _idx_payload(paths[2], 8)
    x_train, x_test = _idx_payload(paths[1], 16), _idx_payload(paths[3], 16)
    for images, labels, where in ((x_train, y_train, paths[1]), (x_test, y_test, paths[3])):
        if images.size != len(labels) * 28 * 28:
            raise DatasetError(f"{where}: {images.size} pixels for {len(labels)} labels of "
                               "28x28 images")
    return ((x_train.reshape(len(y_train), 28, 28), y_train),
            (x_test.reshape(len(y_test), 28, 28), y_test))


def load_batch(fpath, label_key="labels"):
    """A CIFAR python batch: ``(n, 3, 32, 32)`` uint8 pixels and its labels (a list).

    Parameters
    ----------
    fpath : str
        The pickled batch (``data_batch_1``, ``train``...).
    label_key : str
        ``"labels"`` (CIFAR-10), ``"fine_labels"`` or ``"coarse_labels"`` (CIFAR-100).
    """
    with open(fpath, "rb") as stream:
        batch = read_pickle(stream.read(), encoding="bytes", where=fpath)
    if not isinstance(batch, dict):
        raise DatasetError(f"{fpath}: not a CIFAR batch (a {type(batch).__name__})")
    batch = {key.decode("utf8") if isinstance(key, bytes) else key: value
             for key, value in batch.items()}
    data, labels = batch.get("data"), batch.get(label_key)
    if not isinstance(data, np.ndarray) or data.ndim != 2 or data.shape[1] != 3072 \
            or not isinstance(labels, list) or len(labels) != len(data) \
            or not all(isinstance(label, int) and 0 <= label < 256 for label in labels):
        raise DatasetError(f"{fpath}: not a CIFAR batch (its data {getattr(data, 'shape', None)}"
                           f", {label_key} {type(labels).__name__} of class ids 0..255)")
    return data.reshape(data.shape[0], 3, 32, 32), labels


def _channels(x: np.ndarray) -> np.ndarray:
    return x.transpose(0, 2, 3, 1) if backend.image_data_format() == "channels_last" else x


def load_cifar10():
    """``tf.keras.datasets.cifar10.load_data``: CIFAR-10 as uint8 arrays.

    Returns
    -------
    tuple
        ``(x_train, y_train), (x_test, y_test)``: uint8 ``(50000, 32, 32, 3)`` (channels
        first with ``image_data_format() == "channels_first"``) and ``(50000, 1)``, then
        ``(10000, ...)``.
    """
    path = get_file("cifar-10-batches-py", origin=_CIFAR_URL + "cifar-10-python.tar.gz",
                    untar=True,
                    file_hash="6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce")
    batches = [load_batch(os.path.join(path, f"data_batch_{i}")) for i in range(1, 6)]
    # TF fills (50000, ...) arrays of 10000 per batch: a batch of another size fails there
    if any(len(labels) != 10000 for _, labels in batches):
        raise DatasetError(f"{path}: a training batch does not hold 10000 images")
    x_train = np.concatenate([x for x, _ in batches]).astype(np.uint8)
    y_train = np.concatenate([np.asarray(y, dtype=np.uint8) for _, y in batches])
    x_test, y_test = load_batch(os.path.join(path, "test_batch"))
    y_train = y_train.reshape(len(y_train), 1)
    y_test = np.reshape(y_test, (len(y_test), 1)).astype(y_train.dtype)
    return (_channels(x_train), y_train), (_channels(x_test).astype(x_train.dtype), y_test)


def load_cifar100(label_mode="fine"):
    """``tf.keras.datasets.cifar100.load_data``: CIFAR-100 as arrays.

    Parameters
    ----------
    label_mode : {"fine", "coarse"}
        The 100 classes or the 20 superclasses.

    Returns
    -------
    tuple
        ``(x_train, y_train), (x_test, y_test)``: uint8 ``(50000, 32, 32, 3)`` and int64
        ``(50000, 1)``, then ``(10000, ...)``.
    """
    if label_mode not in ["fine", "coarse"]:
        raise ValueError('`label_mode` must be one of `"fine"`, `"coarse"`.')
    path = get_file("cifar-100-python", origin=_CIFAR_URL + "cifar-100-python.tar.gz",
                    untar=True,
                    file_hash="85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7")
    splits = []
    for name in ("train", "test"):
        x, y = load_batch(os.path.join(path, name), label_key=label_mode + "_labels")
        splits.append((_channels(x), np.reshape(y, (len(y), 1))))
    return tuple(splits)
