"""What the files hold: IDX arrays (MNIST, Fashion-MNIST) and CIFAR-10's pickled batches.

The readers check structure (magic number, sizes, shapes, label range) rather than
checksums, and raise :class:`DatasetError` naming the file when it is truncated or corrupt.
Standard library and numpy only.
"""

from __future__ import annotations

import gzip
import pickle
import struct
import tarfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

__all__ = [
    "CIFAR10_FOLDER",
    "NUM_CLASSES",
    "DatasetError",
    "IdxFile",
    "check_idx_pair",
    "read_cifar10",
    "read_idx",
]

#: Classes in every data set here; labels run from 0 to ``NUM_CLASSES - 1``.
NUM_CLASSES = 10
_IDX_UBYTE = 0x08
#: The folder of CIFAR-10's python batches, inside the archive or extracted.
CIFAR10_FOLDER = "cifar-10-batches-py"
_CIFAR10_TRAIN_BATCHES = tuple(f"data_batch_{i}" for i in range(1, 6))
_CIFAR10_TEST_BATCH = "test_batch"


class DatasetError(RuntimeError):
    """A data set file is missing, corrupt, or could not be downloaded."""


@dataclass(frozen=True)
class IdxFile:
    """An IDX array and the file it came from, for error messages."""

    path: Path
    array: np.ndarray


def read_idx(path: Path) -> IdxFile:
    """Read a gzipped or plain IDX file of unsigned bytes.

    Parameters
    ----------
    path : pathlib.Path
        The file; gzip is recognised by its magic bytes, not by the name.

    Returns
    -------
    IdxFile
        The uint8 array, shaped as the header says, and ``path``.

    Raises
    ------
    DatasetError
        If the file cannot be read, is not an IDX file of unsigned bytes, or its size
        does not match its header.
    """
    try:
        with open(path, "rb") as raw:
            compressed = raw.read(2) == b"\x1f\x8b"
        opener = gzip.open if compressed else open
        with opener(path, "rb") as stream:
            data = stream.read()
    except (OSError, EOFError, zlib.error) as exc:
        raise DatasetError(f"cannot read {path}: {exc} (truncated or corrupt; "
                           "delete it to download it again)") from exc
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] != _IDX_UBYTE:
        raise DatasetError(f"{path} is not an IDX file of unsigned bytes "
                           f"(magic {data[:4].hex() or 'missing'}); delete it to download it "
                           "again")
    ndim = data[3]
    header = 4 + 4 * ndim
    if ndim == 0 or len(data) < header:
        raise DatasetError(f"{path}: truncated or corrupt IDX header")
    shape = struct.unpack(f">{ndim}I", data[4:header])
    expected = header + int(np.prod(shape, dtype=np.int64))
    if len(data) != expected:
        raise DatasetError(f"{path}: size mismatch, the header {shape} needs {expected} bytes "
                           f"but there are {len(data)} (truncated or corrupt file; delete it "
                           "to download it again)")
    return IdxFile(path, np.frombuffer(data, dtype=np.uint8, offset=header).reshape(shape))


def check_idx_pair(images: IdxFile, labels: IdxFile) -> None:
    """Check that two IDX files are matching MNIST-style images and labels.

    Parameters
    ----------
    images : IdxFile
        Expected to hold ``(n, 28, 28)`` pixels.
    labels : IdxFile
        Expected to hold ``(n,)`` class ids below :data:`NUM_CLASSES`.

    Raises
    ------
    DatasetError
        Naming the offending file, if a shape, the count or a label is wrong.
    """
    if images.array.ndim != 3 or images.array.shape[1:] != (28, 28):
        raise DatasetError(f"{images.path}: expected 28x28 images, got shape "
                           f"{images.array.shape}")
    if labels.array.ndim != 1:
        raise DatasetError(f"{labels.path}: expected a vector of labels, got shape "
                           f"{labels.array.shape}")
    if len(images.array) != len(labels.array):
        raise DatasetError(f"{len(images.array)} images in {images.path} but "
                           f"{len(labels.array)} labels in {labels.path}")
    _check_label_range(labels.array, labels.path)


def _check_label_range(labels: np.ndarray, where: object) -> None:
    if labels.size and labels.max() >= NUM_CLASSES:
        raise DatasetError(f"{where}: label {int(labels.max())} out of range "
                           f"0..{NUM_CLASSES - 1}")


class _NdarrayName:
    """What a batch's ``numpy.ndarray`` global becomes: only ``_reconstruct``'s first argument,
    never called (a pickle calling ``ndarray(shape)`` would allocate any size it names)."""

    def __new__(cls, *args):
        raise pickle.UnpicklingError("numpy.ndarray called as no numpy pickle calls it")


def _reconstruct(subtype, shape, dtype):
    # numpy's own pickles make an empty array here and give its data to __setstate__, which
    # checks the bytes against the shape: any other call is a file asking for memory
    if subtype is not _NdarrayName or tuple(shape) != (0,):
        raise pickle.UnpicklingError("numpy._reconstruct called as no numpy pickle calls it")
    return np.ndarray((0,), dtype)


_CIFAR_GLOBALS = {
    ("numpy", "ndarray"): _NdarrayName,
    ("numpy", "dtype"): np.dtype,
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
}


class _CifarUnpickler(pickle.Unpickler):
    """Unpickler that rebuilds numpy arrays and nothing else.

    CIFAR-10's python batches are pickled dicts of byte strings, lists and one
    uint8 array; refusing every other global keeps a tampered file from running
    code, and ``ndarray`` / ``_reconstruct`` only as numpy's pickles use them keeps it from
    allocating more than its bytes hold.
    """

    def find_class(self, module: str, name: str) -> object:
        """Resolve a global if it is one a CIFAR batch needs."""
        if (module, name) not in _CIFAR_GLOBALS:
            raise pickle.UnpicklingError(f"unexpected global {module}.{name}")
        return _CIFAR_GLOBALS[module, name]


def read_cifar10(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Read the CIFAR-10 batches from the archive or the extracted folder ``path``.

    Parameters
    ----------
    path : pathlib.Path
        ``cifar-10-python.tar.gz`` (any compression tarfile reads) or the extracted
        :data:`CIFAR10_FOLDER`.

    Returns
    -------
    train_images, train_labels, test_images, test_labels : numpy.ndarray
        ``(n, 3072)`` uint8 pixels (channel-major) and ``(n,)`` int64 labels of the five
        training batches together, then of the test batch.

    Raises
    ------
    DatasetError
        If a batch is missing, unreadable, or not shaped like a CIFAR-10 batch.
    """
    wanted = (*_CIFAR10_TRAIN_BATCHES, _CIFAR10_TEST_BATCH)
    if path.is_dir():
        batches = {}
        for name in wanted:
            batch_path = path / name
            if not batch_path.is_file():
                raise DatasetError(f"{path}: missing {name}")
            with open(batch_path, "rb") as stream:
                batches[name] = _parse_cifar_batch(stream, batch_path)
    else:
        batches = _read_cifar_archive(path, wanted)
    train = [batches[name] for name in _CIFAR10_TRAIN_BATCHES]
    test_images, test_labels = batches[_CIFAR10_TEST_BATCH]
    return (np.concatenate([images for images, _ in train]),
            np.concatenate([labels for _, labels in train]), test_images, test_labels)


def _read_cifar_archive(path: Path, wanted: Sequence[str]
                        ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    batches = {}
    try:
        # Stream mode reads the archive once, in order, whatever its compression.
        with tarfile.open(path, "r|*") as archive:
            for member in archive:
                parent, _, name = member.name.rpartition("/")
                if name in wanted and parent.endswith(CIFAR10_FOLDER) and member.isfile():
                    stream = archive.extractfile(member)
                    batches[name] = _parse_cifar_batch(stream, f"{path}:{member.name}")
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise DatasetError(f"cannot read {path}: {exc} (truncated or corrupt; delete it to "
                           "download it again)") from exc
    absent = [name for name in wanted if name not in batches]
    if absent:
        raise DatasetError(f"{path}: the archive lacks {CIFAR10_FOLDER}/"
                           f"{', '.join(absent)}")
    return batches


def _parse_cifar_batch(stream: BinaryIO, where: object) -> tuple[np.ndarray, np.ndarray]:
    """Return the ``(n, 3072)`` uint8 pixels and ``(n,)`` labels of one batch."""
    try:
        batch = _CifarUnpickler(stream, encoding="bytes").load()
        data = np.asarray(batch[b"data"], dtype=np.uint8)
        labels = np.asarray(batch[b"labels"], dtype=np.int64)
    except Exception as exc:  # a corrupt pickle can fail in many ways
        raise DatasetError(f"cannot read CIFAR-10 batch {where}: {exc!r}") from exc
    if data.ndim != 2 or data.shape[1] != 3 * 32 * 32:
        raise DatasetError(f"{where}: expected (n, 3072) pixels, got {data.shape}")
    if labels.shape != (len(data),):
        raise DatasetError(f"{where}: {len(data)} images but {labels.size} labels")
    if labels.size and labels.min() < 0:
        raise DatasetError(f"{where}: negative label {int(labels.min())}")
    _check_label_range(labels, where)
    return data, labels
