"""MNIST, Fashion-MNIST and CIFAR-10 loaders in the style of TensorFlow 1.x tutorials.

Each ``get_*`` function returns a :class:`Datasets` with ``.train`` and ``.test``
splits; a split holds float32 ``images`` in [0, 1] (NCHW, or flattened), float32
``labels`` (class ids, or one-hot) and ``next_batch(n)``, which walks through the
examples in a fresh random order each epoch, as ``mnist.train.next_batch`` did.

Files are looked for, in order, in ``data_dir`` (the files directly in it, or in
``data_dir/<dataset>``), in ``$TINYFLOW_DATA/<dataset>``, in
``~/.cache/tinyflow/<dataset>`` and, for Fashion-MNIST, in the folder of Debian's
``dataset-fashion-mnist`` package. ``<dataset>`` is ``mnist``, ``fashion-mnist`` or
``cifar-10``. Missing files are downloaded from the mirrors below (overridable with
the ``mirrors=`` argument or the ``TINYFLOW_MNIST_MIRROR``,
``TINYFLOW_FASHION_MNIST_MIRROR`` and ``TINYFLOW_CIFAR10_MIRROR`` environment
variables, each a comma or space separated list of base URLs), checked against
:data:`SHA256` and moved into place only once complete and verified. Downloads go
to ``data_dir`` when given, else to the first of ``$TINYFLOW_DATA/<dataset>`` and
``~/.cache/tinyflow/<dataset>``.

This module depends on the standard library and numpy only (tqdm, when installed,
draws the download progress bar).
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import http.client
import os
import pickle
import re
import struct
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import BinaryIO

import numpy as np

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

#: Base URLs tried in order for the MNIST files.
MNIST_MIRRORS = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
)
#: Base URLs tried in order for the Fashion-MNIST files.
FASHION_MNIST_MIRRORS = ("http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",)
#: Base URLs tried in order for the CIFAR-10 archive.
CIFAR10_MIRRORS = ("https://www.cs.toronto.edu/~kriz/",)

#: SHA-256 of every downloadable file, by dataset folder name then file name.
#: These are the files as the mirrors serve them (the published MD5s match too:
#: MNIST as listed by torchvision, Fashion-MNIST as listed in Zalando's README,
#: CIFAR-10 c58f30108f718f92721af3b95e74349a).
SHA256 = MappingProxyType({
    "mnist": MappingProxyType({
        "train-images-idx3-ubyte.gz":
            "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
        "train-labels-idx1-ubyte.gz":
            "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
        "t10k-images-idx3-ubyte.gz":
            "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
        "t10k-labels-idx1-ubyte.gz":
            "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
    }),
    "fashion-mnist": MappingProxyType({
        "train-images-idx3-ubyte.gz":
            "3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84",
        "train-labels-idx1-ubyte.gz":
            "a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845",
        "t10k-images-idx3-ubyte.gz":
            "346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073",
        "t10k-labels-idx1-ubyte.gz":
            "67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5",
    }),
    "cifar-10": MappingProxyType({
        "cifar-10-python.tar.gz":
            "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce",
    }),
})

#: Read-only folders installed by system packages, searched after the cache.
#: Debian's ``dataset-fashion-mnist`` re-gzips the files (same IDX content, other
#: gzip header), so files found locally are checked for structure, not checksum.
SYSTEM_DATA_DIRS = MappingProxyType({
    "fashion-mnist": ("/usr/share/datasets/fashion-mnist",),
})

_NUM_CLASSES = 10
_CHUNK_BYTES = 1 << 16
_TIMEOUT_S = 60
_IDX_UBYTE = 0x08
_CIFAR10_FOLDER = "cifar-10-batches-py"
_CIFAR10_TRAIN_BATCHES = tuple(f"data_batch_{i}" for i in range(1, 6))
_CIFAR10_TEST_BATCH = "test_batch"


class DatasetError(RuntimeError):
    """A data set file is missing, corrupt, or could not be downloaded."""


@dataclass(frozen=True)
class _Spec:
    """What a data set needs: its folder name, files and mirror variable."""

    key: str
    title: str
    # One entry per needed file: the name to download, then other accepted local names
    # (a trailing "/" marks a folder).
    files: tuple[tuple[str, ...], ...]
    mirror_env: str


def _idx_files(*names: str) -> tuple[tuple[str, ...], ...]:
    # A gzipped IDX file may also be found already uncompressed.
    return tuple((name, name.removesuffix(".gz")) for name in names)


_MNIST_FILES = _idx_files(
    "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
)
_MNIST = _Spec("mnist", "MNIST", _MNIST_FILES, "TINYFLOW_MNIST_MIRROR")
_FASHION_MNIST = _Spec(
    "fashion-mnist", "Fashion-MNIST", _MNIST_FILES, "TINYFLOW_FASHION_MNIST_MIRROR"
)
_CIFAR10 = _Spec(
    "cifar-10",
    "CIFAR-10",
    (("cifar-10-python.tar.gz", _CIFAR10_FOLDER + "/"),),
    "TINYFLOW_CIFAR10_MIRROR",
)


class DataSet:
    """One split of a data set, served in shuffled mini-batches.

    Parameters
    ----------
    images : numpy.ndarray
        Examples, first axis indexing them.
    labels : numpy.ndarray
        One label (or one-hot row) per example.
    seed : int or numpy.random.SeedSequence, optional
        Seed of the generator that orders the examples in each epoch.

    Attributes
    ----------
    epochs_completed : int
        How many full passes over the examples :meth:`next_batch` has made.
    """

    def __init__(self, images: np.ndarray, labels: np.ndarray, *,
                 seed: int | np.random.SeedSequence = 0) -> None:
        if len(images) != len(labels):
            raise ValueError(f"{len(images)} images but {len(labels)} labels")
        self._images = images
        self._labels = labels
        self._rng = np.random.default_rng(seed)
        self._order = self._rng.permutation(len(images))
        self._position = 0
        self.epochs_completed = 0

    @property
    def images(self) -> np.ndarray:
        """numpy.ndarray: All the examples, in file order."""
        return self._images

    @property
    def labels(self) -> np.ndarray:
        """numpy.ndarray: All the labels, in file order."""
        return self._labels

    @property
    def num_examples(self) -> int:
        """int: Number of examples in the split."""
        return len(self._images)

    def next_batch(self, batch_size: int) -> tuple[np.ndarray, np.ndarray]:
        """Return the next ``batch_size`` examples and their labels.

        Every example appears exactly once per epoch; the order is reshuffled at
        the start of each epoch, and a batch that crosses an epoch boundary ends
        with the first examples of the next epoch.

        Parameters
        ----------
        batch_size : int
            Number of examples to return, at least 1.

        Returns
        -------
        images, labels : tuple of numpy.ndarray
            Copies of the selected examples and of their labels.
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
            raise TypeError(f"batch_size must be an int, not {type(batch_size).__name__}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        count = self.num_examples
        if count == 0:
            raise ValueError("cannot draw a batch from an empty data set")
        parts = []
        remaining = int(batch_size)
        while remaining:
            if self._position == count:
                self._order = self._rng.permutation(count)
                self._position = 0
            take = min(remaining, count - self._position)
            parts.append(self._order[self._position:self._position + take])
            self._position += take
            remaining -= take
            if self._position == count:
                self.epochs_completed += 1
        index = np.concatenate(parts)
        return self._images[index], self._labels[index]

    def __repr__(self) -> str:
        return (f"DataSet(images={self._images.shape}, labels={self._labels.shape}, "
                f"epochs_completed={self.epochs_completed})")


@dataclass(frozen=True)
class Datasets:
    """The training and test splits of a data set.

    Attributes
    ----------
    train : DataSet
        The training split.
    test : DataSet
        The test split.
    """

    train: DataSet
    test: DataSet


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
    return _load_idx_dataset(_MNIST, flatten, onehot, data_dir, seed, mirrors, download)


def get_fashion_mnist(flatten: bool = False, onehot: bool = False,
                      data_dir: str | os.PathLike | None = None, *, seed: int = 0,
                      mirrors: Sequence[str] | None = None,
                      download: bool = True) -> Datasets:
    """Load Fashion-MNIST, downloading missing files.

    Also looks in :data:`SYSTEM_DATA_DIRS` (Debian's ``dataset-fashion-mnist``
    package installs the files in ``/usr/share/datasets/fashion-mnist``).

    Parameters
    ----------
    flatten : bool, optional
        Return images as ``(n, 784)`` rows instead of ``(n, 1, 28, 28)``.
    onehot : bool, optional
        Return labels as ``(n, 10)`` one-hot rows instead of ``(n,)`` class ids.
    data_dir : str or os.PathLike, optional
        Folder searched first (its files, then its ``fashion-mnist`` subfolder);
        downloads go there when given.
    seed : int, optional
        Seed of the batch order of both splits.
    mirrors : sequence of str, optional
        Base URLs to download from, replacing ``$TINYFLOW_FASHION_MNIST_MIRROR``
        and :data:`FASHION_MNIST_MIRRORS`.
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
    return _load_idx_dataset(_FASHION_MNIST, flatten, onehot, data_dir, seed, mirrors,
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
    onehot : bool, optional
        Return labels as ``(n, 10)`` one-hot rows instead of ``(n,)`` class ids.
    data_dir : str or os.PathLike, optional
        Folder searched first (its files, then its ``cifar-10`` subfolder);
        downloads go there when given.
    seed : int, optional
        Seed of the batch order of both splits.
    mirrors : sequence of str, optional
        Base URLs to download from, replacing ``$TINYFLOW_CIFAR10_MIRROR`` and
        :data:`CIFAR10_MIRRORS`.
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
    (path,) = _locate(_CIFAR10, data_dir, mirrors, download)
    train_images, train_labels, test_images, test_labels = _read_cifar10(path)
    return _make_datasets(train_images, train_labels, test_images, test_labels,
                          (3, 32, 32), flatten, onehot, seed)


def _load_idx_dataset(spec: _Spec, flatten: bool, onehot: bool,
                      data_dir: str | os.PathLike | None, seed: int,
                      mirrors: Sequence[str] | None, download: bool) -> Datasets:
    train_images, train_labels, test_images, test_labels = (
        _read_idx(path) for path in _locate(spec, data_dir, mirrors, download))
    for images, labels in ((train_images, train_labels), (test_images, test_labels)):
        _check_idx_pair(images, labels)
    return _make_datasets(train_images.array, train_labels.array, test_images.array,
                          test_labels.array, (1, 28, 28), flatten, onehot, seed)


def _make_datasets(train_images: np.ndarray, train_labels: np.ndarray,
                   test_images: np.ndarray, test_labels: np.ndarray,
                   image_shape: tuple[int, ...], flatten: bool, onehot: bool,
                   seed: int) -> Datasets:
    train_seed, test_seed = np.random.SeedSequence(seed).spawn(2)
    return Datasets(
        train=DataSet(_to_images(train_images, image_shape, flatten),
                      _to_labels(train_labels, onehot), seed=train_seed),
        test=DataSet(_to_images(test_images, image_shape, flatten),
                     _to_labels(test_labels, onehot), seed=test_seed),
    )


def _to_images(pixels: np.ndarray, image_shape: tuple[int, ...],
               flatten: bool) -> np.ndarray:
    images = pixels.astype(np.float32)
    images /= 255.0
    shape = (-1, int(np.prod(image_shape))) if flatten else (-1, *image_shape)
    return images.reshape(shape)


def _to_labels(labels: np.ndarray, onehot: bool) -> np.ndarray:
    if onehot:
        return np.eye(_NUM_CLASSES, dtype=np.float32)[labels]
    return labels.astype(np.float32)


# ---------------------------------------------------------------------------
# Finding and downloading files


def _user_folders(spec: _Spec) -> list[Path]:
    """Return ``$TINYFLOW_DATA/<dataset>`` (when set) and ``~/.cache/tinyflow/<dataset>``."""
    folders = []
    env_root = os.environ.get("TINYFLOW_DATA")
    if env_root:
        folders.append(Path(env_root).expanduser() / spec.key)
    folders.append(Path.home() / ".cache" / "tinyflow" / spec.key)
    return folders


def _search_folders(spec: _Spec, data_dir: str | os.PathLike | None) -> list[Path]:
    folders = []
    if data_dir is not None:
        root = Path(data_dir).expanduser()
        folders += [root, root / spec.key]
    folders += _user_folders(spec)
    folders += [Path(folder) for folder in SYSTEM_DATA_DIRS.get(spec.key, ())]
    return list(dict.fromkeys(folders))


def _download_folder(spec: _Spec, data_dir: str | os.PathLike | None) -> Path:
    if data_dir is not None:
        return Path(data_dir).expanduser()
    return _user_folders(spec)[0]


def _mirror_list(spec: _Spec, mirrors: Sequence[str] | None) -> tuple[str, ...]:
    if mirrors is not None:
        if isinstance(mirrors, str):
            mirrors = (mirrors,)
        return tuple(mirrors)
    from_env = os.environ.get(spec.mirror_env, "")
    if from_env.strip():
        return tuple(re.split(r"[\s,]+", from_env.strip()))
    defaults = {
        "mnist": MNIST_MIRRORS,
        "fashion-mnist": FASHION_MNIST_MIRRORS,
        "cifar-10": CIFAR10_MIRRORS,
    }
    return tuple(defaults[spec.key])


def _find_local(names: Iterable[str], folders: Iterable[Path]) -> Path | None:
    for folder in folders:
        for name in names:
            path = folder / name
            # A name ending in "/" stands for a folder (an extracted archive).
            if path.is_dir() if name.endswith("/") else path.is_file():
                return path
    return None


def _locate(spec: _Spec, data_dir: str | os.PathLike | None,
            mirrors: Sequence[str] | None, download: bool) -> list[Path]:
    """Return the local path of every file of ``spec``, downloading missing ones."""
    folders = _search_folders(spec, data_dir)
    found = [_find_local(names, folders) for names in spec.files]
    missing = [index for index, path in enumerate(found) if path is None]
    if missing and not download:
        raise DatasetError(_missing_message(spec, missing, folders, []))
    target = _download_folder(spec, data_dir)
    urls = _mirror_list(spec, mirrors)
    for position, index in enumerate(missing):
        path, failures = _download_from_mirrors(spec, spec.files[index][0], urls, target)
        if path is None:
            raise DatasetError(_missing_message(spec, missing[position:], folders, failures))
        found[index] = path
    return found


def _download_from_mirrors(spec: _Spec, name: str, urls: Sequence[str],
                           target: Path) -> tuple[Path | None, list[str]]:
    expected = SHA256.get(spec.key, {}).get(name)
    if expected is None:
        raise DatasetError(f"no SHA-256 known for {spec.title} file {name}")
    failures = []
    for base in urls:
        url = base.rstrip("/") + "/" + name
        try:
            return _download(url, target / name, expected), failures
        except (OSError, http.client.HTTPException, ValueError) as exc:
            failures.append(f"{url}: {exc}")
    return None, failures


def _download(url: str, path: Path, expected_sha256: str) -> Path:
    """Download ``url`` to ``path`` through a verified temporary file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                         suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            digest = _fetch(url, out)
            out.flush()
            os.fsync(out.fileno())
        if digest != expected_sha256:
            raise ValueError(f"SHA-256 mismatch: expected {expected_sha256}, got {digest}")
        os.chmod(temp_name, 0o644)
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    return path


def _fetch(url: str, out: BinaryIO) -> str:
    """Stream ``url`` into the binary file ``out``; return the SHA-256 of the bytes."""
    request = urllib.request.Request(url, headers={"User-Agent": "tinyflow"})
    digest = hashlib.sha256()
    with urllib.request.urlopen(request, timeout=_TIMEOUT_S) as response:
        length = response.headers.get("Content-Length")
        total = int(length) if length and length.isdigit() else None
        received = 0
        with _progress_bar(total, url.rsplit("/", 1)[-1]) as advance:
            while chunk := response.read(_CHUNK_BYTES):
                out.write(chunk)
                digest.update(chunk)
                received += len(chunk)
                advance(len(chunk))
    # http.client does not notice a body cut short when reading in chunks.
    if total is not None and received != total:
        raise OSError(f"connection closed after {received} of {total} bytes")
    return digest.hexdigest()


@contextlib.contextmanager
def _progress_bar(total: int | None, description: str) -> Iterator[Callable[[int], object]]:
    """Yield a function that advances a tqdm bar on stderr, or does nothing without tqdm."""
    try:
        from tqdm import tqdm
    except ImportError:
        yield lambda count: None
        return
    with tqdm(total=total, desc=description, unit="B", unit_scale=True, unit_divisor=1024,
              file=sys.stderr) as bar:
        yield bar.update


def _missing_message(spec: _Spec, missing: Sequence[int], folders: Sequence[Path],
                     failures: Sequence[str]) -> str:
    """Explain which files (indices into ``spec.files``) are missing and where they go."""
    names = ", ".join(spec.files[index][0] for index in missing)
    lines = [f"{spec.title}: missing file(s) {names}."]
    if failures:
        lines.append("Every mirror failed:")
        lines += [f"  {failure}" for failure in failures]
    lines.append("Folders searched:")
    lines += [f"  {folder}" for folder in folders]
    lines.append(
        "To work offline, put these files in one of those folders (or in "
        f"$TINYFLOW_DATA/{spec.key}, or pass data_dir=):")
    for index in missing:
        name, *others = spec.files[index]
        lines.append(f"  {name}" + (f" (or {' or '.join(others)})" if others else ""))
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Reading files


@dataclass(frozen=True)
class _IdxFile:
    """An IDX array and the file it came from, for error messages."""

    path: Path
    array: np.ndarray


def _read_idx(path: Path) -> _IdxFile:
    """Read a gzipped or plain IDX file of unsigned bytes."""
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
    return _IdxFile(path, np.frombuffer(data, dtype=np.uint8, offset=header).reshape(shape))


def _check_idx_pair(images: _IdxFile, labels: _IdxFile) -> None:
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
    if labels.size and labels.max() >= _NUM_CLASSES:
        raise DatasetError(f"{where}: label {int(labels.max())} out of range "
                           f"0..{_NUM_CLASSES - 1}")


class _CifarUnpickler(pickle.Unpickler):
    """Unpickler that rebuilds numpy arrays and nothing else.

    CIFAR-10's python batches are pickled dicts of byte strings, lists and one
    uint8 array; refusing every other global keeps a tampered file from running
    code.
    """

    _ALLOWED = frozenset({
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "_reconstruct"),
    })

    def find_class(self, module: str, name: str) -> object:
        """Resolve a global if it is one a CIFAR batch needs."""
        if (module, name) not in self._ALLOWED:
            raise pickle.UnpicklingError(f"unexpected global {module}.{name}")
        return super().find_class(module, name)


def _read_cifar10(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Read the CIFAR-10 batches from the archive or the extracted folder ``path``."""
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
                if name in wanted and parent.endswith(_CIFAR10_FOLDER) and member.isfile():
                    stream = archive.extractfile(member)
                    batches[name] = _parse_cifar_batch(stream, f"{path}:{member.name}")
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise DatasetError(f"cannot read {path}: {exc} (truncated or corrupt; delete it to "
                           "download it again)") from exc
    absent = [name for name in wanted if name not in batches]
    if absent:
        raise DatasetError(f"{path}: the archive lacks {_CIFAR10_FOLDER}/"
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
