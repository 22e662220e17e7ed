"""``tf.python_io`` (and ``tf.io``'s names for it): TFRecord files, TensorFlow's container of
byte records, and ``tf.train.summary_iterator`` over an event file (itself TFRecords).

A record is its length (uint64, little-endian), the masked CRC-32C of those 8 bytes, the data,
and the masked CRC-32C of the data (``tensorflow/core/lib/io/record_writer.cc``); ``GZIP`` and
``ZLIB`` files are that stream compressed whole.  A file is untrusted input: a length past the
file's end or a CRC that differs is a ``DataLossError`` naming the file and the offset, and a
record's bytes are read in pieces of at most 16 MiB, so a length field claiming more than the
file holds allocates nothing.
"""
from __future__ import annotations

import gzip
import os
import struct
import zlib
from typing import ClassVar

from ..nnvm import host_memory
from ..nnvm.errors import DataLossError, ResourceExhaustedError
from .checkpoint_format import crc32c, mask_crc
from .events import proto

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter", "read_records",
           "summary_iterator", "tf_record_iterator"]

_PIECE = 16 << 20  # the most bytes one read asks for


class TFRecordCompressionType:
    """The compression of a TFRecord file."""

    NONE, ZLIB, GZIP = 0, 1, 2


class TFRecordOptions:
    """How a TFRecord file is compressed: ``compression_type`` one of
    :class:`TFRecordCompressionType` or ``""`` / ``"ZLIB"`` / ``"GZIP"``;
    ``compression_level`` (0-9, default 6 as zlib's)."""

    compression_type_map: ClassVar[dict] = {
        TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP"}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        kind = self.compression_type_map.get(compression_type, compression_type) or ""
        if kind not in ("", "ZLIB", "GZIP"):
            raise ValueError(f'compression_type must be one of "", "ZLIB", "GZIP" (or '
                             f'TFRecordCompressionType), got {compression_type!r}')
        self.compression_type = kind
        self.compression_level = 6 if compression_level is None else int(compression_level)

    @classmethod
    def get_compression_type_string(cls, options) -> str:
        if options is None:
            return ""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return TFRecordOptions(options).compression_type


def _open(path, mode, options):
    """``path`` (or a binary file object) opened to write or read the stream ``options``
    compress."""
    kind = TFRecordOptions.get_compression_type_string(options)
    level = options.compression_level if isinstance(options, TFRecordOptions) else 6
    path = path if hasattr(path, "read") else os.fspath(path)
    if kind == "GZIP" and mode == "r":
        return gzip.open(path, "rb")
    if kind:  # written as TF's zlib stream: its gzip header has no time, so TF's bytes
        return _Zlib(path, mode, level, 31 if kind == "GZIP" else 15)
    return path if hasattr(path, "read") else open(path, mode + "b")


class _Zlib:
    """A whole-file zlib (or, written, gzip) stream, written or read in pieces."""

    def __init__(self, path, mode, level, window_bits=15):
        self._file = path if hasattr(path, "read") else open(path, mode + "b")  # noqa: SIM115
        self._codec = (zlib.compressobj(level, zlib.DEFLATED, window_bits, 9)  # TF's mem_level
                       if mode == "w" else zlib.decompressobj())
        self._buffer = b""

    def write(self, data):
        self._file.write(self._codec.compress(data))

    def read(self, n):
        while len(self._buffer) < n:
            piece = self._file.read(_PIECE)
            if not piece:
                self._buffer += self._codec.flush()
                break
            self._buffer += self._codec.decompress(piece, n - len(self._buffer) + _PIECE)
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def flush(self):
        self._file.flush()

    def close(self):
        if hasattr(self._codec, "compress"):
            self._file.write(self._codec.flush())
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class TFRecordWriter:
    """Writes records (bytes) to a TFRecord file at ``path`` (``options``: its compression);
    a context manager."""

    def __init__(self, path, options=None):
        self._file = _open(path, "w", options)

    def write(self, record) -> None:
        """Append one record (bytes; a str is written as its UTF-8 bytes)."""
        data = record.encode() if isinstance(record, str) else bytes(record)
        length = struct.pack("<Q", len(data))
        self._file.write(length + struct.pack("<I", mask_crc(crc32c(length))) + data
                         + struct.pack("<I", mask_crc(crc32c(data))))

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def tf_record_iterator(path, options=None):
    """The records of the TFRecord file at ``path``, as bytes, in order; DataLossError at a
    truncated or corrupted record."""
    path = os.fspath(path)
    size = os.path.getsize(path) if not TFRecordOptions.get_compression_type_string(
        options) else None
    with _open(path, "r", options) as file:
        for _, record in read_records(file, path, size):
            yield record


def read_records(file, path, size=None):
    """``(offset, record)`` of each record in ``file`` (a binary stream, ``size`` bytes long
    when known: not compressed), for errors named ``path``; DataLossError at a truncated or
    corrupted record, ResourceExhaustedError at a length the memory cannot hold."""
    offset = 0
    while True:
        header = file.read(12)
        if not header:
            return
        if len(header) < 12:
            raise DataLossError(None, None, f"truncated record at {offset} in '{path}'")
        (length,), (masked,) = struct.unpack("<Q", header[:8]), struct.unpack("<I", header[8:])
        if mask_crc(crc32c(header[:8])) != masked:
            raise DataLossError(None, None, f"corrupted record at {offset} in '{path}' "
                                            f"(its length's checksum differs)")
        if size is not None and offset + 16 + length > size:
            raise DataLossError(None, None, f"truncated record at {offset} in '{path}': "
                                            f"{length} bytes claimed past the file's end")
        data = _read_exactly(file, length + 4, path, offset, bounded=size is not None)
        if mask_crc(crc32c(data[:-4])) != struct.unpack("<I", data[-4:])[0]:
            raise DataLossError(None, None, f"corrupted record at {offset} in '{path}' "
                                            f"(its data's checksum differs)")
        yield offset, data[:-4]
        offset += 16 + length


def _read_exactly(file, n, path, offset, bounded=True) -> bytes:
    """``n`` bytes of ``file`` in pieces; not ``bounded`` by a file's size (compressed), the
    bytes read so far are checked against the memory the machine can give."""
    pieces, left, limit = [], n, None
    while left:
        piece = file.read(min(left, _PIECE))
        if not piece:
            raise DataLossError(None, None, f"truncated record at {offset} in '{path}'")
        pieces.append(piece)
        left -= len(piece)
        if left and not bounded:
            limit = _free_bytes() if limit is None else limit
            if n - left > limit:
                raise ResourceExhaustedError(
                    f"record at {offset} in '{path}' claims {n - 4} bytes, more than the "
                    f"{limit} free: read {n - left} of them")
    return b"".join(pieces)


def _free_bytes() -> int:
    return host_memory.host_available_bytes()[0]


def summary_iterator(path):
    """The ``Event`` protocol buffers of an event file (what ``tf.summary.FileWriter`` wrote),
    in order: ``for event in tf.train.summary_iterator(path): event.summary.value``..."""
    event = proto("event_pb2").Event
    for record in tf_record_iterator(path):
        yield event.FromString(record)
