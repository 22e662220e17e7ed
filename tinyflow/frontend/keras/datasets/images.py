"""The image data sets of ``tf.keras.datasets`` (mnist, fashion_mnist, cifar10, cifar100),
read as TF 1.15 reads them: the same files, URLs, hashes and cache folders, the same arrays.
A pickled CIFAR batch is read by :func:`.safe_pickle.read_pickle`, never by
``pickle`` (a downloaded file must not run code)."""
from __future__ import annotations

import gzip
import os
import zlib
from types import MappingProxyType

import numpy as np

from ....datasets.formats import DatasetError
from ....nnvm import host_memory
from .. import backend
from ..data_utils import get_file
from .safe_pickle import read_npz, read_pickle

__all__ = ["CIFAR10_BATCH_SIZE", "CIFAR_URL", "FILE_HASHES", "KERAS_DATASETS_URL", "fetch",
           "load_batch", "load_cifar10", "load_cifar100", "load_fashion_mnist", "load_mnist",
           "npz_arrays"]

#: Where TF 1.15 downloads Keras' data sets from (its ``origin_folder``), and CIFAR's.
KERAS_DATASETS_URL = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
CIFAR_URL = "https://www.cs.toronto.edu/~kriz/"
#: TF 1.15's hash of each file it checks (SHA-256, or MD5 for the word indexes); read here
#: when a loader runs (tests patch it, as ``sources.SHA256``). Fashion-MNIST's have none.
FILE_HASHES = MappingProxyType({
    "mnist.npz": "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1",
    "cifar-10-python.tar.gz":
        "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce",
    "cifar-100-python.tar.gz":
        "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7",
    "imdb.npz": "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f",
    "imdb_word_index.json": "bfafd718b763782e994055a2d397834f",
    "reuters.npz": "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916",
    "reuters_word_index.json": "4d44cc38712099c9e383dc6e5f11a921",
    "boston_housing.npz": "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5",
})
#: Images in each CIFAR-10 training batch: TF fills its arrays 10000 at a time.
CIFAR10_BATCH_SIZE = 10000


def fetch(fname: str, origin_name: str, **kwargs) -> str:
    """:func:`get_file` of Keras' file ``origin_name`` (under :data:`KERAS_DATASETS_URL`, or
    :data:`CIFAR_URL` for a ``.tar.gz``) cached as ``fname``, with its hash."""
    base = CIFAR_URL if origin_name.endswith(".tar.gz") else KERAS_DATASETS_URL
    return get_file(fname, origin=base + origin_name, file_hash=FILE_HASHES.get(origin_name),
                    **kwargs)


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
    path = fetch(path, "mnist.npz")
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
    paths = [fetch(name, name, cache_subdir=dirname) for name in files]
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
    path = fetch("cifar-10-batches-py", "cifar-10-python.tar.gz", untar=True)
    batches = [load_batch(os.path.join(path, f"data_batch_{i}")) for i in range(1, 6)]
    # TF fills (50000, ...) arrays 10000 per batch: a batch of another size fails there
    if any(len(labels) != CIFAR10_BATCH_SIZE for _, labels in batches):
        raise DatasetError(f"{path}: a training batch does not hold {CIFAR10_BATCH_SIZE} "
                           "images")
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
    path = fetch("cifar-100-python", "cifar-100-python.tar.gz", untar=True)
    splits = []
    for name in ("train", "test"):
        x, y = load_batch(os.path.join(path, name), label_key=label_mode + "_labels")
        splits.append((_channels(x), np.reshape(y, (len(y), 1))))
    return tuple(splits)
