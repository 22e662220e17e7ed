"""``tf.gfile``: TensorFlow's file API on local paths, raising ``tf.errors`` as TF does
(``NotFoundError`` for a missing file, ``AlreadyExistsError`` when not overwriting)."""
from __future__ import annotations

import collections
import contextlib
import glob
import os
import shutil

from . import errors

__all__ = ["Copy", "DeleteRecursively", "Exists", "FastGFile", "FileStatistics", "GFile", "Glob",
           "IsDirectory", "ListDirectory", "MakeDirs", "MkDir", "Open", "Remove", "Rename",
           "Stat", "Walk"]


@contextlib.contextmanager
def _tf_errors(path):
    """Python's OSErrors as TensorFlow's errors, with TF's ``<path>; <reason>`` message."""
    try:
        yield
    except OSError as err:
        kind = {FileNotFoundError: errors.NotFoundError, FileExistsError:
                errors.AlreadyExistsError, PermissionError: errors.PermissionDeniedError}.get(
                    type(err), errors.FailedPreconditionError)
        raise kind(None, None, f"{path}; {err.strerror or err}") from err


def Exists(filename) -> bool:
    """Whether the path exists."""
    return os.path.exists(filename)


def IsDirectory(dirname) -> bool:
    """Whether the path is a directory."""
    return os.path.isdir(dirname)


def MakeDirs(dirname) -> None:
    """Create the directory and its missing parents; an existing directory is fine."""
    with _tf_errors(dirname):
        os.makedirs(dirname, exist_ok=True)


def MkDir(dirname) -> None:
    """Create one directory (its parent must exist: NotFoundError); an existing one is fine,
    as in TF."""
    with _tf_errors(dirname):
        if not os.path.isdir(dirname):
            os.mkdir(dirname)


class FileStatistics(collections.namedtuple("FileStatistics",
                                            ("length", "mtime_nsec", "is_directory"))):
    """What :func:`Stat` tells of a path: its size in bytes, its modification time in
    nanoseconds (whole seconds, as TF's POSIX file system gives it), whether a directory."""


def Stat(filename) -> FileStatistics:
    """The path's :class:`FileStatistics` (NotFoundError when missing)."""
    with _tf_errors(filename):
        found = os.stat(filename)
    return FileStatistics(found.st_size, int(found.st_mtime) * 10**9, os.path.isdir(filename))


def ListDirectory(dirname) -> list:
    """The names in the directory (NotFoundError when it is not one)."""
    if not os.path.isdir(dirname):
        raise errors.NotFoundError(None, None, f"Could not find directory {dirname}")
    return os.listdir(dirname)


def Glob(filename) -> list:
    """The paths matching the pattern."""
    return glob.glob(str(filename))


def Walk(top, in_order: bool = True):
    """``(dirname, subdirs, files)`` for each directory under ``top`` (parents first when
    ``in_order``); nothing when ``top`` does not exist."""
    return os.walk(top, topdown=in_order)


def Remove(filename) -> None:
    """Delete a file (NotFoundError when missing)."""
    with _tf_errors(filename):
        os.remove(filename)


def DeleteRecursively(dirname) -> None:
    """Delete a directory and everything in it, or a file (NotFoundError when missing)."""
    with _tf_errors(dirname):
        if os.path.isdir(dirname) and not os.path.islink(dirname):
            shutil.rmtree(dirname)
        else:
            os.remove(dirname)


def _check_target(newname, overwrite):
    if not overwrite and os.path.exists(newname):
        raise errors.AlreadyExistsError(None, None, f"file already exists: {newname}")


def Rename(oldname, newname, overwrite: bool = False) -> None:
    """Move ``oldname`` to ``newname`` (AlreadyExistsError when it exists, unless
    ``overwrite``)."""
    _check_target(newname, overwrite)
    with _tf_errors(oldname):
        os.replace(oldname, newname)


def Copy(oldpath, newpath, overwrite: bool = False) -> None:
    """Copy a file (AlreadyExistsError when ``newpath`` exists, unless ``overwrite``)."""
    _check_target(newpath, overwrite)
    with _tf_errors(oldpath):
        shutil.copyfile(oldpath, newpath)


class GFile:
    """TensorFlow's file object on Python's own: ``"r"`` reads str, ``"rb"`` bytes; ``read``,
    ``readline``, ``readlines``, ``write``, ``seek``, ``tell``, iteration, ``with``, and TF's
    ``size()``.  Opening a missing file for reading is a NotFoundError."""

    def __init__(self, name, mode: str = "r") -> None:
        self.name, self.mode = os.fspath(name), mode
        with _tf_errors(name):
            self._file = open(self.name, mode)  # noqa: SIM115 - closed by close() or the with block

    def size(self) -> int:
        """The file's length in bytes."""
        if self._file.writable():
            self._file.flush()
        return os.path.getsize(self.name)

    def __getattr__(self, attribute):
        if attribute == "_file":  # not opened (the NotFoundError __init__ raised)
            raise AttributeError(attribute)
        return getattr(self._file, attribute)

    def __iter__(self):
        return iter(self._file)

    def __next__(self):
        return next(self._file)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._file.close()


Open = FastGFile = GFile


def __getattr__(name):
    raise AttributeError(f"tf.gfile.{name} is not supported by TinyFlow")
