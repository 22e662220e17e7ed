"""Where the files come from: the data set specs, the folders searched, verified downloads.

A spec names a data set's folder, its files (and the other names a file is accepted under
locally), its mirrors and the SHA-256 of every download. :func:`locate` finds each file in
the folders searched (see :mod:`tinyflow.datasets` for their order) or downloads it through
a temporary file, checked before it is moved into place; tqdm, when installed, draws the
progress bar. Standard library only.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import re
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import BinaryIO

from .formats import CIFAR10_FOLDER, DatasetError

__all__ = [
    "CIFAR10_MIRRORS",
    "CIFAR10_SPEC",
    "DOWNLOAD_DEADLINE_S",
    "DOWNLOAD_MAX_BYTES",
    "FASHION_MNIST_MIRRORS",
    "FASHION_MNIST_SPEC",
    "MNIST_MIRRORS",
    "MNIST_SPEC",
    "SHA256",
    "SYSTEM_DATA_DIRS",
    "Spec",
    "download",
    "locate",
]

# ---------------------------------------------------------------------------
# Data set specs


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


@dataclass(frozen=True)
class Spec:
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
MNIST_SPEC = Spec("mnist", "MNIST", _MNIST_FILES, "TINYFLOW_MNIST_MIRROR")
FASHION_MNIST_SPEC = Spec(
    "fashion-mnist", "Fashion-MNIST", _MNIST_FILES, "TINYFLOW_FASHION_MNIST_MIRROR"
)
CIFAR10_SPEC = Spec(
    "cifar-10",
    "CIFAR-10",
    (("cifar-10-python.tar.gz", CIFAR10_FOLDER + "/"),),
    "TINYFLOW_CIFAR10_MIRROR",
)


# ---------------------------------------------------------------------------
# Finding and downloading files


_CHUNK_BYTES = 1 << 16
_TIMEOUT_S = 60  # per read: a connection silent this long fails

#: Seconds one file's download from one mirror may take in all (the default of
#: :func:`locate`'s ``deadline_s``); a read in progress may overrun it by up to 60 s.
DOWNLOAD_DEADLINE_S = 1800.0
#: Bytes one downloaded file may have (the default of :func:`locate`'s ``max_bytes``;
#: CIFAR-10's archive, the largest, is 163 MiB).
DOWNLOAD_MAX_BYTES = 1 << 30
# Partial downloads last written before this moment are stale (their process was killed).
_STARTED = time.time()


def _user_folders(spec: Spec) -> list[Path]:
    """Return ``$TINYFLOW_DATA/<dataset>`` (when set) and ``~/.cache/tinyflow/<dataset>``."""
    folders = []
    env_root = os.environ.get("TINYFLOW_DATA")
    if env_root:
        folders.append(Path(env_root).expanduser() / spec.key)
    folders.append(Path.home() / ".cache" / "tinyflow" / spec.key)
    return folders


def _search_folders(spec: Spec, data_dir: str | os.PathLike | None) -> list[Path]:
    folders = []
    if data_dir is not None:
        root = Path(data_dir).expanduser()
        folders += [root, root / spec.key]
    folders += _user_folders(spec)
    folders += [Path(folder) for folder in SYSTEM_DATA_DIRS.get(spec.key, ())]
    return list(dict.fromkeys(folders))


def _download_folder(spec: Spec, data_dir: str | os.PathLike | None) -> Path:
    if data_dir is not None:
        return Path(data_dir).expanduser()
    return _user_folders(spec)[0]


def _mirror_list(spec: Spec, mirrors: Sequence[str] | None) -> tuple[str, ...]:
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


def locate(spec: Spec, data_dir: str | os.PathLike | None,
           mirrors: Sequence[str] | None, download: bool, *,
           deadline_s: float | None = None, max_bytes: int | None = None) -> list[Path]:
    """Return the local path of every file of ``spec``, downloading missing ones.

    Parameters
    ----------
    spec : Spec
        The data set.
    data_dir : str or os.PathLike or None
        Folder searched first (its files, then its ``<dataset>`` subfolder); downloads
        go there when given.
    mirrors : sequence of str or None
        Base URLs to download from; None means ``$<spec.mirror_env>``, else the
        data set's default mirrors.
    download : bool
        Whether to download missing files; if False they are an error.
    deadline_s : float, optional
        Seconds one file's download from one mirror may take in all (default
        :data:`DOWNLOAD_DEADLINE_S`); past it that mirror counts as failed.
    max_bytes : int, optional
        Bytes one file may have (default :data:`DOWNLOAD_MAX_BYTES`); a mirror announcing or
        sending more counts as failed.

    Returns
    -------
    list of pathlib.Path
        One path per entry of ``spec.files``, in that order.

    Notes
    -----
    A download goes to ``.<file name>.XXXXXXXX.part`` beside the file and is renamed into
    place once its SHA-256 checks; any exception (KeyboardInterrupt and SystemExit included)
    deletes it.  A process killed outright (SIGKILL, or SIGTERM without a handler: none is
    installed) leaves it behind: the next download of that file removes such partial files
    last written before its own process started.

    Raises
    ------
    DatasetError
        If files are missing and cannot be downloaded; the message lists the mirrors'
        failures, the folders searched and the file names to put there.
    """
    folders = _search_folders(spec, data_dir)
    found = [_find_local(names, folders) for names in spec.files]
    missing = [index for index, path in enumerate(found) if path is None]
    if missing and not download:
        raise DatasetError(_missing_message(spec, missing, folders, []))
    target = _download_folder(spec, data_dir)
    urls = _mirror_list(spec, mirrors)
    limits = (DOWNLOAD_DEADLINE_S if deadline_s is None else deadline_s,
              DOWNLOAD_MAX_BYTES if max_bytes is None else max_bytes)
    for position, index in enumerate(missing):
        path, failures = _download_from_mirrors(spec, spec.files[index][0], urls, target,
                                                limits)
        if path is None:
            raise DatasetError(_missing_message(spec, missing[position:], folders, failures))
        found[index] = path
    return found


def _download_from_mirrors(spec: Spec, name: str, urls: Sequence[str], target: Path,
                           limits: tuple[float, int]) -> tuple[Path | None, list[str]]:
    expected = SHA256.get(spec.key, {}).get(name)
    if expected is None:
        raise DatasetError(f"no SHA-256 known for {spec.title} file {name}")
    failures = []
    for base in urls:
        url = base.rstrip("/") + "/" + name
        try:
            return download(url, target / name, expected, *limits), failures
        except (OSError, http.client.HTTPException, ValueError) as exc:
            failures.append(f"{url}: {exc}")
    return None, failures


def download(url: str, path: Path, expected: str | None,
             deadline_s: float = DOWNLOAD_DEADLINE_S, max_bytes: int = DOWNLOAD_MAX_BYTES,
             algorithm: str = "sha256") -> Path:
    """Download ``url`` to ``path`` through a temporary file checked before it is moved into
    place.

    Parameters
    ----------
    url : str
        Where the file is.
    path : pathlib.Path
        Where it goes; its folder is made.
    expected : str or None
        The file's hex digest; None checks nothing (a caller that knows no hash).
    deadline_s, max_bytes : float, int
        What :func:`locate`'s arguments of those names say, for this one download.
    algorithm : str
        ``"sha256"`` or ``"md5"``: the digest ``expected`` is.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    OSError, http.client.HTTPException
        When the download fails, passes ``deadline_s`` or exceeds ``max_bytes``.
    ValueError
        When the digest is not ``expected``.  Any exception removes the temporary file;
        partial files a killed process left are removed first.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_parts(path)
    handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                         suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            digest = _fetch(url, out, time.monotonic() + deadline_s, max_bytes, algorithm)
            out.flush()
            os.fsync(out.fileno())
        if expected is not None and digest != expected:
            name = {"sha256": "SHA-256", "md5": "MD5"}.get(algorithm, algorithm)
            raise ValueError(f"{name} mismatch: expected {expected}, got {digest}")
        os.chmod(temp_name, 0o644)
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    return path


def _remove_stale_parts(path: Path) -> None:
    """Delete ``.<name>.XXXXXXXX.part`` files beside ``path`` last written before this
    process started (a process killed while downloading left them)."""
    pattern = re.compile(rf"\.{re.escape(path.name)}\.[a-z0-9_]{{8}}\.part")
    for entry in path.parent.iterdir():
        if pattern.fullmatch(entry.name):
            with contextlib.suppress(OSError):
                if entry.is_file() and entry.stat().st_mtime < _STARTED:
                    entry.unlink()


def _fetch(url: str, out: BinaryIO, deadline: float, max_bytes: int,
           algorithm: str = "sha256") -> str:
    """Stream ``url`` into the binary file ``out``; return the ``algorithm`` digest of the
    bytes.  OSError past ``deadline`` (a ``time.monotonic()`` value) or beyond ``max_bytes``."""
    try:
        return _stream(url, out, deadline, max_bytes, algorithm)
    except (TimeoutError, urllib.error.URLError) as exc:
        # the socket's timeout is at most what was left of the deadline: a mirror slow to
        # answer (or a loaded machine) is the deadline's error too, not a bare "timed out"
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError) and time.monotonic() >= deadline:
            raise OSError(f"not done by the deadline (deadline_s): {reason}") from exc
        raise


def _stream(url: str, out: BinaryIO, deadline: float, max_bytes: int, algorithm: str) -> str:
    request = urllib.request.Request(url, headers={"User-Agent": "tinyflow"})
    digest = hashlib.new(algorithm)
    timeout = max(0.001, min(_TIMEOUT_S, deadline - time.monotonic()))
    with urllib.request.urlopen(request, timeout=timeout) as response:
        length = response.headers.get("Content-Length")
        total = int(length) if length and length.isdigit() else None
        if total is not None and total > max_bytes:
            raise OSError(f"the file has {total} bytes, more than the {max_bytes} allowed "
                          f"(max_bytes)")
        received = 0
        with _progress_bar(total, url.rsplit("/", 1)[-1]) as advance:
            # read1: what has arrived (up to a chunk), so a slow mirror meets the deadline
            # when it passes, not after a whole chunk has trickled in
            while chunk := response.read1(_CHUNK_BYTES):
                received += len(chunk)
                if received > max_bytes:
                    raise OSError(f"more than the {max_bytes} bytes allowed (max_bytes)")
                if time.monotonic() > deadline:
                    raise OSError(f"not done by the deadline (deadline_s), after {received} "
                                  f"bytes")
                out.write(chunk)
                digest.update(chunk)
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


def _missing_message(spec: Spec, missing: Sequence[int], folders: Sequence[Path],
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
