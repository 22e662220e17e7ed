"""``tf.data.TFRecordDataset``, ``tf.data.TextLineDataset`` and
``tf.data.FixedLengthRecordDataset``: the records of TFRecord files, the lines of text files or
the fixed-length records of binary files, one string element each, in file order (TensorFlow
1.15's).  A file is untrusted input: it is read record by record through
``tf.python_io``'s reader (:func:`tinyflow.frontend.python_io.tf_record_iterator`), so a
corrupted length or checksum, or a truncated record, is TF's ``DataLossError`` naming the file
and offset, raised by the ``sess.run`` that reached it; a missing file is ``NotFoundError``;
a line longer than the free memory (a compressed file's), or a fixed record length past it, is
a ``ResourceExhaustedError``.
"""
from __future__ import annotations

import os

import numpy as np

from ...nnvm import host_memory
from ...nnvm.errors import (
    DataLossError,
    InvalidArgumentError,
    NotFoundError,
    ResourceExhaustedError,
)
from ...nnvm.symbol import Symbol
from ...nnvm.tensor_shape import TensorShape
from .. import python_io
from ..dtypes import string
from ..python_io import TFRecordOptions, tf_record_iterator
from .dataset import Dataset, _integer
from .structure import Spec

__all__ = ["FixedLengthRecordDataset", "TFRecordDataset", "TextLineDataset"]


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
            for record in self._records(name, context):
                yield self._element(record)

    @staticmethod
    def _element(record) -> tuple:
        element = np.empty((), dtype=object)
        element[()] = record
        return (element,)

    def _records(self, name, context):
        return tf_record_iterator(name, self._options)


class TextLineDataset(TFRecordDataset):
    """The lines of ``filenames`` (a file name, a list of them, or a string tensor of them),
    each a scalar string without its ``\\n`` (nor a ``\\r`` before it);
    ``compression_type`` None or ``""``, ``"ZLIB"`` or ``"GZIP"``."""

    _kind = "TextLineDataset"

    def __init__(self, filenames, compression_type=None, buffer_size=None):
        super().__init__(filenames, compression_type, buffer_size)

    def _records(self, name, context):
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


class FixedLengthRecordDataset(TFRecordDataset):
    """The records of ``record_bytes`` bytes each of ``filenames`` (a file name, a list of
    them, or a string tensor of them), each a scalar string, after ``header_bytes`` and before
    ``footer_bytes`` of each file (TF 1.15's; the sizes ints or int64 scalar tensors).
    ``compression_type`` None or ``""``, ``"ZLIB"`` or ``"GZIP"`` (the sizes count the
    decompressed bytes); ``buffer_size`` is accepted and checked (TinyFlow reads a piece of up
    to 16 MB at a time).

    As TensorFlow's kernel: a size out of range (``record_bytes`` below 1, the others below 0)
    is an ``InvalidArgumentError`` when the iterator runs; an uncompressed file whose body (its
    size less header and footer) is not a whole number of records is an
    ``InvalidArgumentError`` before its first record, a compressed one a ``DataLossError``
    after its whole records (TensorFlow 2.21 gives an internal error for a compressed file
    shorter than its header and footer).  An unknown ``compression_type`` is a ValueError when
    the dataset is made, as ``TFRecordDataset``'s here (TensorFlow: when it runs)."""

    _kind = "FixedLengthRecordDataset"

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None):
        super().__init__(filenames, compression_type, buffer_size)
        self._sizes = [_integer(0 if value is None else value, "FixedLengthRecordDataset", name)
                       for name, value in (("record_bytes", record_bytes),
                                           ("header_bytes", header_bytes),
                                           ("footer_bytes", footer_bytes),
                                           ("buffer_size", buffer_size))]
        self._own_captures += [s for s in self._sizes if isinstance(s, Symbol)]

    def _records(self, name, context):
        record, header, footer, buffer = (context.integer(s) for s in self._sizes)
        for argument, value, low in (("record_bytes", record, 1), ("header_bytes", header, 0),
                                     ("footer_bytes", footer, 0), ("buffer_size", buffer, 0)):
            if value < low:
                raise InvalidArgumentError(None, None, f"{self._what}: `{argument}` must be "
                                                       f"{'> 0' if low else '>= 0'}")
        held = record + footer + python_io._PIECE  # the most bytes a file's read holds
        limit, source = host_memory.host_available_bytes()
        if held > limit:
            raise ResourceExhaustedError(f"{self._what}: records of {record} bytes (and a "
                                         f"footer of {footer}) of {name} need {held} bytes, "
                                         f"more than the {limit} available ({source})")
        if not self._options.compression_type:  # TF checks the length before reading
            body = os.path.getsize(name) - header - footer
            if body < 0 or body % record:
                raise InvalidArgumentError(None, None, _not_whole(name, header, footer, body,
                                                                  record))
        with python_io._open(name, "r", self._options) as file:
            yield from _fixed_records(file, name, record, header, footer)


def _not_whole(name, header, footer, body, record) -> str:
    return (f"Excluding the header ({header} bytes) and footer ({footer} bytes), input file "
            f"\"{name}\" has body length {body} bytes, which is not an exact multiple of the "
            f"record length ({record} bytes).")


def _fixed_records(file, name, record, header, footer):
    """The records of ``record`` bytes of an opened ``file``, after ``header`` bytes and
    before ``footer``; a body not a whole number of records is a DataLossError at its end
    (its whole records given first, as TF's reader of a compressed file)."""
    pending, total, taken = bytearray(), 0, 0
    while piece := file.read(python_io._PIECE):
        total += len(piece)
        skip = max(0, min(len(piece), header - (total - len(piece))))
        pending += piece[skip:] if skip else piece
        whole = max(0, len(pending) - footer) // record
        for start in range(0, whole * record, record):
            yield bytes(pending[start:start + record])
        del pending[:whole * record]
        taken += whole
    body = total - header - footer
    if body < 0 or body % record:
        raise DataLossError(None, None, _not_whole(name, header, footer, body, record))


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
