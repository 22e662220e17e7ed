"""``tf.keras.utils.get_file``: a file downloaded once into Keras' cache folder, its hash
checked, a tar or zip archive extracted where nothing in it can escape that folder.

The download is :func:`tinyflow.datasets.sources.download`'s (the one downloader: a deadline,
a size cap, a temporary file moved into place only once its hash checks).
"""
from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

from ...datasets import sources
from ...datasets.formats import DatasetError

__all__ = ["extract_archive", "get_file", "keras_cache_dir", "validate_file"]


def keras_cache_dir() -> str:
    """``$KERAS_HOME`` when set (as Keras 2.3 reads it), else ``~/.keras``."""
    return os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")


def _hash_algorithm(algorithm: str, file_hash: str) -> str:
    """Keras' rule: ``"sha256"``, or ``"auto"`` with a 64-digit hash, is SHA-256; anything
    else is MD5."""
    if algorithm == "sha256" or (algorithm == "auto" and len(file_hash) == 64):
        return "sha256"
    return "md5"


def validate_file(fpath, file_hash: str, algorithm: str = "auto",
                  chunk_size: int = 65535) -> bool:
    """Whether the file's hash is ``file_hash`` (``tf.keras`` data_utils' function).

    Parameters
    ----------
    fpath : str or os.PathLike
        The file.
    file_hash : str
        The expected hex digest.
    algorithm : {"auto", "sha256", "md5"}
        ``"auto"`` picks by the hash's length.
    chunk_size : int
        Bytes read at a time.
    """
    digest = hashlib.new(_hash_algorithm(algorithm, str(file_hash)))
    with open(fpath, "rb") as stream:
        while chunk := stream.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest() == str(file_hash)


def get_file(fname, origin, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False,
             archive_format="auto", cache_dir=None):
    """Download a file from ``origin`` into the cache unless it is there with the right hash.

    Parameters
    ----------
    fname : str
        The file's name in ``<cache_dir>/<cache_subdir>`` (a path there, absolute, is used
        as it is, as Keras does).
    origin : str
        Its URL.
    untar : bool
        Deprecated for ``extract``: the file is ``fname + ".tar.gz"``, extracted beside it
        unless ``fname`` (the folder) exists; returns ``fname``'s path.
    md5_hash : str, optional
        Deprecated for ``file_hash``: an MD5.
    file_hash : str, optional
        The file's SHA-256 or MD5; a cached file that does not match it is downloaded
        again, and a download that does not match it is an error.
    cache_subdir : str
        The folder under ``cache_dir`` (default ``"datasets"``).
    hash_algorithm : {"auto", "sha256", "md5"}
        ``"auto"``: SHA-256 for a 64-digit hash, else MD5.
    extract : bool
        Extract the archive (tar, tar.gz, tar.bz2 or zip) into the file's folder.
    archive_format : {"auto", "tar", "zip", None} or list
        The archive types tried.
    cache_dir : str, optional
        Default ``$KERAS_HOME``, else ``~/.keras``; ``/tmp/.keras`` when it is not writable.

    Returns
    -------
    str
        The downloaded file's path (the extracted folder's, with ``untar``).

    Raises
    ------
    tinyflow.datasets.DatasetError
        ``URL fetch failure on <origin>: ...`` (TF's message, of a bare Exception) when the
        download fails, passes :data:`~tinyflow.datasets.sources.DOWNLOAD_DEADLINE_S` or
        exceeds :data:`~tinyflow.datasets.sources.DOWNLOAD_MAX_BYTES`.
    ValueError
        When the downloaded file's hash is not ``file_hash``, or an archive holds a member
        that would land outside the folder (an absolute path, ``..``, a link or a device)
        or more than the size cap: nothing of it is extracted.
    """
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    base = os.path.expanduser(cache_dir if cache_dir is not None else keras_cache_dir())
    # tf.keras' backend makes ~/.keras ($KERAS_HOME) when imported; here, when first needed
    with contextlib.suppress(OSError):
        os.makedirs(base, exist_ok=True)
    if not os.access(base, os.W_OK):
        base = os.path.join("/tmp", ".keras")
    datadir = os.path.join(base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)
    untar_fpath = os.path.join(datadir, fname)
    fpath = untar_fpath + ".tar.gz" if untar else untar_fpath
    if os.path.exists(fpath) and file_hash is not None \
            and not validate_file(fpath, file_hash, hash_algorithm):
        print("A local file was found, but it seems to be incomplete or outdated because the "
              f"{hash_algorithm} file hash does not match the original value of {file_hash} so "
              "we will re-download the data.")
        _download(origin, fpath, file_hash, hash_algorithm)
    elif not os.path.exists(fpath):
        _download(origin, fpath, file_hash, hash_algorithm)
    if untar:
        if not os.path.exists(untar_fpath):
            extract_archive(fpath, datadir, "tar")
        return untar_fpath
    if extract:
        extract_archive(fpath, datadir, archive_format)
    return fpath


def _download(origin: str, fpath: str, file_hash, hash_algorithm: str) -> None:
    print("Downloading data from", origin)
    algorithm = _hash_algorithm(hash_algorithm, str(file_hash or ""))
    try:
        sources.download(origin, Path(fpath), None if file_hash is None else str(file_hash),
                         sources.DOWNLOAD_DEADLINE_S, sources.DOWNLOAD_MAX_BYTES, algorithm)
    except ValueError as exc:  # the hash: TF's later message (TF 1.15 did not check)
        raise ValueError(f"Incomplete or corrupted file detected. The {algorithm} file hash "
                         f"does not match the provided value of {file_hash} ({exc}).") from None
    except (OSError, http.client.HTTPException) as exc:
        # TF raises a bare Exception with this message; DatasetError is one
        raise DatasetError(f"URL fetch failure on {origin}: {exc}") from exc


def extract_archive(file_path, path=".", archive_format="auto") -> bool:
    """Extract a tar or zip archive into ``path`` once every member is checked to stay in it.

    Parameters
    ----------
    file_path : str
        The archive.
    path : str
        The folder it goes into.
    archive_format : {"auto", "tar", "zip", None} or list
        The types tried, in order.

    Returns
    -------
    bool
        Whether it was an archive of one of those types.

    Raises
    ------
    ValueError
        Naming the member, when one is absolute, climbs out with ``..``, is a link, a device
        or a pipe, or the members hold more than the download size cap; nothing is
        extracted then.
    """
    if archive_format is None:
        return False
    formats = ["tar", "zip"] if archive_format == "auto" else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format))
    for kind in formats:
        if kind == "tar" and tarfile.is_tarfile(file_path):
            with tarfile.open(file_path) as archive:
                members = archive.getmembers()
                _check_members(file_path, [(m.name, m.size, m.isfile() or m.isdir())
                                           for m in members])
                archive.extractall(path, members=members, filter="data")
            return True
        if kind == "zip" and zipfile.is_zipfile(file_path):
            with zipfile.ZipFile(file_path) as archive:
                infos = archive.infolist()
                # a zip's external attributes' high half is the Unix mode: file or folder only
                _check_members(file_path, [(i.filename, i.file_size,
                                            (i.external_attr >> 16) & 0o170000
                                            in (0, 0o100000, 0o040000)) for i in infos])
                archive.extractall(path, members=infos)
            return True
    return False


def _check_members(archive: str, members: list[tuple[str, int, bool]]) -> None:
    """ValueError naming the first member that is not a plain file or folder inside."""
    total = 0
    for name, size, plain in members:
        parts = PurePosixPath(name.replace("\\", "/")).parts
        if not plain:
            raise ValueError(f"{archive}: member {name!r} is a link, a device or a pipe; "
                             "refusing to extract the archive")
        if not parts or parts[0] == "/" or ".." in parts or ":" in parts[0]:
            raise ValueError(f"{archive}: member {name!r} would be written outside the "
                             "folder; refusing to extract the archive")
        total += size
    if total > sources.DOWNLOAD_MAX_BYTES:
        raise ValueError(f"{archive}: its members hold {total} bytes, more than the "
                         f"{sources.DOWNLOAD_MAX_BYTES} allowed (DOWNLOAD_MAX_BYTES)")
