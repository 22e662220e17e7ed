"""``tf.data.TFRecordDataset`` and ``tf.data.TextLineDataset``: the records of TFRecord files,
or the lines of text files, one string element each, in file order (TensorFlow 1.15's).  A file is untrusted input: it is read record by record through
``tf.python_io``'s reader (:func:`tinyflow.frontend.python_io.tf_record_iterator`), so a
corrupted length or checksum, or a truncated record, is TF's ``DataLossError`` naming the file
and offset, raised by the ``sess.run`` that reached it; a missing file is ``NotFoundError``;
a line longer than the free memory (a compressed file's) is a ``ResourceExhaustedError``.
"""
from __future__ import annotations

import os

import numpy as np

from ...nnvm.errors import NotFoundError, ResourceExhaustedError
from ...nnvm.symbol import Symbol
from ...nnvm.tensor_shape import TensorShape
from .. import python_io
from ..dtypes import string
from ..python_io import TFRecordOptions, tf_record_iterator
from .dataset import Dataset
from .structure import Spec

__all__ = ["TFRecordDataset", "TextLineDataset"]


class TFRecordDataset(Dataset):
    """The records of ``filenames`` (a file name, a list of them, or a string tensor of them),
    each a scalar string; ``compression_type`` None or ``""``, ``"ZLIB"`` or ``"GZIP"``.
    ``buffer_size`` and ``num_parallel_reads`` are accepted (TinyFlow reads one record at a
    time, in order)."""

    _kind = "TFRecordDataset"

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None):
        self._options = TFRecordOptions(compression_type or "")
        if isinstance(filenames, Symbol):
            if filenames.dtype.name != "string":
                raise TypeError(f"`filenames` must be a tf.string tensor, got "
                                f"{filenames.dtype.name}")
            if filenames.get_shape().ndims not in (None, 0, 1):
                raise TypeError(f"`filenames` must be a scalar or a vector, got shape "
                                f"{filenames.get_shape()}")
            self._filenames, captures = filenames, [filenames]
        else:
            self._filenames, captures = _names(filenames), []
        super().__init__(Spec(string, TensorShape([])), captures=captures)

    def _elements(self, context):
        names = (_names(context.value(self._filenames).reshape(-1).tolist())
                 if isinstance(self._filenames, Symbol) else self._filenames)
        for name in names:
            if not os.path.isfile(name):
                raise NotFoundError(None, None, f"{name}; No such file or directory "
                                                f"({self._what})")
            for record in self._records(name):
                element = np.empty((), dtype=object)
                element[()] = record
                yield (element,)

    def _records(self, name):
        return tf_record_iterator(name, self._options)


class TextLineDataset(TFRecordDataset):
    """The lines of ``filenames`` (a file name, a list of them, or a string tensor of them),
    each a scalar string without its ``\\n`` (nor a ``\\r`` before it);
    ``compression_type`` None or ``""``, ``"ZLIB"`` or ``"GZIP"``."""

    _kind = "TextLineDataset"

    def __init__(self, filenames, compression_type=None, buffer_size=None):
        super().__init__(filenames, compression_type, buffer_size)

    def _records(self, name):
        with python_io._open(name, "r", self._options) as file:
            rest, limit = b"", None
            while True:
                piece = file.read(python_io._PIECE)
                lines = (rest + piece).split(b"\n")
                rest = lines.pop() if piece else b""
                yield from (line[:-1] if line.endswith(b"\r") else line
                            for line in lines if piece or line)
                if not piece:
                    return
                if len(rest) > python_io._PIECE:  # a line longer than a piece: it must fit
                    limit = python_io._free_bytes() if limit is None else limit
                    if len(rest) > limit:
                        raise ResourceExhaustedError(
                            f"a line of {name} holds more than the {limit} bytes free")


def _names(filenames) -> list:
    """File names as str: a str, bytes or path, or a list / tuple / array of them."""
    if isinstance(filenames, (str, bytes, os.PathLike)):
        filenames = [filenames]
    if isinstance(filenames, np.ndarray):
        filenames = filenames.reshape(-1).tolist()
    if not isinstance(filenames, (list, tuple)) or not all(
            isinstance(f, (str, bytes, os.PathLike)) for f in filenames):
        raise TypeError(f"`filenames` must be a string, a list of strings or a tf.string "
                        f"tensor, got {filenames!r}")
    return [os.fsdecode(f) for f in filenames]
