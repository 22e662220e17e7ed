"""TF-1's readers and ``tf.decode_raw`` (TensorFlow 1.15's semantics):
``tf.FixedLengthRecordReader``, ``tf.WholeFileReader``, ``tf.TextLineReader``,
``tf.TFRecordReader``; ``tf.read_file``.

``reader.read(filename_queue)`` gives ``(key, value)``, two strings: the next record of the
file the reader is on, taking the next file name from the queue when it has read them all
(past the last file of a closed queue: ``OutOfRangeError``).  A string is no executor buffer,
so the read is pulled before the run, and ``tf.decode_raw(value, tf.uint8)`` too, after it
(FPullOutputs: tinyflow/ops/queue.py, session/pull.py): the executor sees the decoded numbers.

Files are untrusted input: a file larger than the memory the machine can give now is a
``ResourceExhaustedError`` naming it, read nowhere; a missing one a ``NotFoundError``.
"""
from __future__ import annotations

import io
import os
import threading

import numpy as np

from ..nnvm import host_memory
from ..nnvm.dtypes import as_dtype
from ..nnvm.errors import InvalidArgumentError, NotFoundError, ResourceExhaustedError
from ..nnvm.symbol import NodeEntry, Symbol, create_op, current_context
from ..nnvm.tensor_shape import TensorShape
from ..ops import parsing as parsing_ops  # noqa: F401 - registers read_file
from ..ops import queue as queue_ops  # noqa: F401 - registers reader_read and decode_raw
from .math_ops import convert_to_tensor
from .python_io import _open, read_records

__all__ = ["FixedLengthRecordReader", "ReaderBase", "TFRecordReader", "TextLineReader",
           "WholeFileReader", "decode_raw", "read_file"]


class ReaderBase:
    """A reader of records from the files a queue of file names gives; its position lives
    per session (TF's resource manager)."""

    def __init__(self, name):
        self._name = current_context().unique_name(name)
        self._base = self._name.rsplit("/", 1)[-1]  # its ops' names, under the current scope

    name = property(lambda self: self._name)

    def read(self, queue, name=None):
        """``(key, value)``: the next record's key (``b"<file>:<n>"``) and bytes, pulled once
        per run that needs them."""
        node = create_op("reader_read", reader=self, queue=queue,
                         name=name or f"{self._base}_ReaderReadV2").outputs[0].node
        return Symbol([NodeEntry(node, 0)]), Symbol([NodeEntry(node, 1)])

    def _records(self, data: bytes) -> list:
        raise NotImplementedError  # each reader's own

    def _key(self, filename: str, index: int) -> bytes:
        return f"{filename}:{index}".encode()

    def next_record(self, node, resources, deadline) -> list:
        """FPullOutputs of reader_read: the next (key, value), from the next file if need be."""
        state = resources.get(self)
        if state is None:
            state = resources.setdefault(self, _Position())
        with state.lock:  # threads reading one reader take turns, as in TensorFlow
            while state.records is None or state.index >= len(state.records):
                element = node.attrs["queue"].take_one(node, resources, deadline)
                state.filename = _text(element[0])
                state.records, state.index = self._records(_read_file(node, state.filename)), 0
            key = self._key(state.filename, state.index)
            value = state.records[state.index]
            state.index += 1
        return [np.array(key, dtype=object), np.array(value, dtype=object)]

    def reset(self, name=None):
        raise AttributeError("ReaderBase.reset is not supported by TinyFlow")

    def read_up_to(self, queue, num_records, name=None):
        raise AttributeError("ReaderBase.read_up_to is not supported by TinyFlow: use read")


class FixedLengthRecordReader(ReaderBase):
    """Records of ``record_bytes`` bytes, after ``header_bytes`` and before ``footer_bytes``
    (every ``hop_bytes`` when given); the CIFAR-10 binary format's reader."""

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None,
                 name=None, encoding=None):
        if encoding:
            raise ValueError("FixedLengthRecordReader(encoding=...) (compressed files) is not "
                             "supported by TinyFlow")
        if int(record_bytes) <= 0:
            raise ValueError(f"record_bytes must be > 0, got {record_bytes}")
        super().__init__(name or "FixedLengthRecordReaderV2")
        self.record_bytes, self.header_bytes = int(record_bytes), int(header_bytes or 0)
        self.footer_bytes, self.hop_bytes = int(footer_bytes or 0), int(hop_bytes or 0)

    def _records(self, data):
        end = len(data) - self.footer_bytes
        step = self.hop_bytes or self.record_bytes
        starts = range(self.header_bytes, end - self.record_bytes + 1, step)
        return _Slices(data, starts, self.record_bytes)


class WholeFileReader(ReaderBase):
    """One record per file: its whole contents, the key its name."""

    def __init__(self, name=None):
        super().__init__(name or "WholeFileReaderV2")

    def _records(self, data):
        return [data]

    def _key(self, filename, index):
        return filename.encode()


class TextLineReader(ReaderBase):
    """One record per line (without its ``\\n``, nor a ``\\r`` before it), after
    ``skip_header_lines``; the key is ``<file>:<line number from 1>``."""

    def __init__(self, skip_header_lines=None, name=None):
        super().__init__(name or "TextLineReaderV2")
        self.skip_header_lines = int(skip_header_lines or 0)

    def _records(self, data):
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        return [line[:-1] if line.endswith(b"\r") else line
                for line in lines[self.skip_header_lines:]]

    def next_record(self, node, resources, deadline):
        key, value = super().next_record(node, resources, deadline)
        name, _, number = key.item().decode().rpartition(":")  # numbered from the file's 1st
        return [np.array(f"{name}:{int(number) + 1 + self.skip_header_lines}".encode(),
                         dtype=object), value]


class TFRecordReader(ReaderBase):
    """The records of TFRecord files (``options``: their compression, as
    ``tf.python_io.TFRecordOptions``); the key is ``<file>:<offset of the record>``.  A
    corrupted or truncated record is a ``DataLossError`` naming the file and offset."""

    def __init__(self, name=None, options=None):
        super().__init__(name or "TFRecordReaderV2")
        self.options = options

    def next_record(self, node, resources, deadline):
        state = resources.get(self)
        if state is None:
            state = resources.setdefault(self, _Position())
        with state.lock:  # records decoded one at a time: a compressed file may hold many
            record = None
            while record is None:
                if state.records is None:
                    element = node.attrs["queue"].take_one(node, resources, deadline)
                    state.filename = _text(element[0])
                    data = io.BytesIO(_read_file(node, state.filename))
                    state.records = read_records(_open(data, "r", self.options),
                                                 state.filename)
                record = next(state.records, None)
                if record is None:
                    state.records = None
        offset, value = record
        return [np.array(f"{state.filename}:{offset}".encode(), dtype=object),
                np.array(value, dtype=object)]


class _Position:
    """A reader's place in one session: the file it is on and its next record."""

    def __init__(self):
        self.lock = threading.Lock()
        self.filename, self.records, self.index = None, None, 0


class _Slices:
    """The records of one file of fixed-length records, cut when read."""

    def __init__(self, data, starts, length):
        self.data, self.starts, self.length = data, starts, length

    def __len__(self):
        return len(self.starts)

    def __getitem__(self, index):
        start = self.starts[index]
        return self.data[start:start + self.length]


def _text(value) -> str:
    value = value.item() if isinstance(value, np.ndarray) else value
    return os.fsdecode(value) if isinstance(value, bytes) else str(value)


def _read_file(node, filename) -> bytes:
    """The file's bytes; its size checked against the memory the machine can give."""
    try:
        size = os.path.getsize(filename)
    except OSError as err:
        raise NotFoundError(None, node.name, f"{node.describe()}: {filename}: {err.strerror}")
    limit, source = host_memory.host_available_bytes()
    if size > limit:
        raise ResourceExhaustedError(
            f"{node.describe()} cannot read {filename}: it holds "
            f"{host_memory.format_bytes(size)}, more than the {host_memory.format_bytes(limit)} "
            f"free ({source})", node)
    try:
        with open(filename, "rb") as file:
            return file.read(size)
    except OSError as err:
        raise NotFoundError(None, node.name, f"{node.describe()}: {filename}: {err.strerror}")


class _Decode:
    """decode_raw's run-time side (its attr func): a string's bytes as numbers."""

    def __init__(self, dtype, little_endian):
        self.dtype = np.dtype(dtype).newbyteorder("<" if little_endian else ">")

    def __call__(self, node, value):
        value = np.asarray(value, dtype=object)
        strings = [s if isinstance(s, bytes) else str(s).encode() for s in value.reshape(-1)]
        sizes = {len(s) for s in strings}
        if len(sizes) > 1:
            raise InvalidArgumentError(None, node.name, "DecodeRaw requires input strings to "
                                       "all be the same size")
        size = sizes.pop() if sizes else 0
        if size % self.dtype.itemsize:
            raise InvalidArgumentError(None, node.name, (
                f"Input to DecodeRaw has length {size} that is not a multiple of "
                f"{self.dtype.itemsize}, the size of {self.dtype.name}"))
        count = size // self.dtype.itemsize
        out = np.empty(value.shape + (count,), dtype=self.dtype.newbyteorder("="))
        for flat, data in zip(out.reshape(len(strings), count), strings):
            flat[...] = np.frombuffer(data, dtype=self.dtype)
        return out


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):
    """``tf.decode_raw``: the bytes of each string of ``input_bytes`` (a reader's record) as
    numbers of ``out_type`` (a new last dimension); all strings of one size."""
    input_bytes = input_bytes if input_bytes is not None else bytes
    if out_type is None:
        raise ValueError("tf.decode_raw needs out_type")
    dtype = as_dtype(out_type)
    if dtype.name in ("string", "bool"):
        raise TypeError(f"tf.decode_raw cannot decode into {dtype.name}")
    value = input_bytes if isinstance(input_bytes, Symbol) else convert_to_tensor(
        input_bytes, dtype="string")
    if value.dtype.name != "string":
        raise TypeError(f"tf.decode_raw takes a string tensor, got {value.dtype.name}")
    in_shape = value.shape
    # TF's static shape: the input's and one unknown dim (a record's size is not used)
    dims = None if in_shape.dims is None else [d.value for d in in_shape.dims] + [None]
    node = create_op("decode_raw", value, out_type=dtype.name,
                     shapes=(None if dims is None else tuple(dims),),
                     func=_Decode(dtype.as_numpy_dtype, little_endian),
                     name=name or "DecodeRaw").node
    current_context().declared_shapes[NodeEntry(node, 0)] = TensorShape(dims)
    return Symbol([NodeEntry(node, 0)])


def _read_contents(node, filename):
    """read_file's run-time side (its attr func): the contents of the file named."""
    return [np.array(_read_file(node, _text(np.asarray(filename[0], dtype=object).item())),
                     dtype=object)]


def read_file(filename, name=None):
    """``tf.read_file``: the contents of the file ``filename`` (a scalar string) names, pulled
    once per run that needs it; a file larger than the free memory is refused unread."""
    value = filename if isinstance(filename, Symbol) else convert_to_tensor(filename,
                                                                            dtype="string")
    if value.dtype.name != "string" or value.get_shape().ndims not in (None, 0):
        raise ValueError(f"tf.read_file takes a scalar string, got {value.dtype.name} of "
                         f"shape {value.get_shape()}")
    return create_op("read_file", value, func=_read_contents, name=name or "ReadFile")
