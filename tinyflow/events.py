"""What TensorBoard reads, written by hand: protocol-buffer messages and TFRecord files.

The messages are TensorFlow's (``summary.proto``, ``event.proto``, ``graph.proto``,
``step_stats.proto``), encoded field by field in proto3's wire format as ``SerializeToString``
writes them: fields in number order, defaults (0, empty) left out, repeated numbers packed.
An event file is a TFRecord file: per record, its length (uint64), the masked CRC32C of those
8 bytes, the data and the masked CRC32C of the data.  No protobuf dependency: a message is
``bytes``, built by the functions below.
"""
from __future__ import annotations

import struct

__all__ = ["DATA_TYPES", "crc32c", "event", "graph_def", "histogram", "image", "masked_crc32c",
           "node_def", "run_metadata", "summary_value", "tfrecord"]


# -- the wire format ----------------------------------------------------------------------
def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int64s take ten bytes, as protobuf writes them
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _key(number: int, wire_type: int) -> bytes:
    return _varint(number << 3 | wire_type)


def _int(number: int, value: int) -> bytes:
    """A varint field (int32, int64, uint32, bool, enum); nothing for 0."""
    return _key(number, 0) + _varint(int(value)) if value else b""


def _fixed(number: int, value: float, fmt: str) -> bytes:
    """A double (``"<d"``, wire type 1) or float (``"<f"``, 5); nothing when its bits are 0."""
    data = struct.pack(fmt, value)
    return _key(number, 1 if fmt == "<d" else 5) + data if any(data) else b""


def _bytes(number: int, value, keep_empty: bool = False) -> bytes:
    """A length-delimited field (string, bytes, message); an empty one only in repeated ones."""
    data = value.encode() if isinstance(value, str) else bytes(value)
    return _key(number, 2) + _varint(len(data)) + data if data or keep_empty else b""


def _packed_doubles(number: int, values) -> bytes:
    return _bytes(number, struct.pack(f"<{len(values)}d", *values))


# -- CRC32C (Castagnoli) and TFRecord framing -----------------------------------------------
def _crc32c_table() -> list:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)  # reflected polynomial 0x1EDC6F41
        table.append(crc)
    return table


_CRC32C_TABLE = tuple(_crc32c_table())


def crc32c(data: bytes) -> int:
    """CRC-32C of ``data`` (RFC 3720's iSCSI checksum, as TFRecord files use)."""
    crc, table = 0xFFFFFFFF, _CRC32C_TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """TFRecord's masked CRC: rotated right by 15 bits plus a constant."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def tfrecord(data: bytes) -> bytes:
    """One TFRecord: length, masked CRC of the length, data, masked CRC of the data."""
    length = struct.pack("<Q", len(data))
    return (length + struct.pack("<I", masked_crc32c(length)) + data
            + struct.pack("<I", masked_crc32c(data)))


# -- messages --------------------------------------------------------------------------------
# TensorFlow's DataType enum (types.proto)
DATA_TYPES = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
              "string": 7, "int64": 9, "bool": 10, "float16": 19}


def histogram(lo, hi, num, total, sum_squares, bucket_limit, bucket) -> bytes:
    """A ``HistogramProto``."""
    return b"".join([_fixed(1, lo, "<d"), _fixed(2, hi, "<d"), _fixed(3, num, "<d"),
                     _fixed(4, total, "<d"), _fixed(5, sum_squares, "<d"),
                     _packed_doubles(6, bucket_limit), _packed_doubles(7, bucket)])


def image(height: int, width: int, colorspace: int, png: bytes) -> bytes:
    """A ``Summary.Image``: ``colorspace`` 1 grey, 2 grey + alpha, 3 RGB, 4 RGBA."""
    return _int(1, height) + _int(2, width) + _int(3, colorspace) + _bytes(4, png)


def _tensor_shape(shape) -> bytes:
    """A ``TensorShapeProto``; ``None`` for an unknown rank, ``None`` dims as -1."""
    if shape is None:
        return _int(3, True)
    return b"".join(_bytes(2, _int(1, -1 if d is None else d), keep_empty=True) for d in shape)


def _string_tensor(values, shape) -> bytes:
    """A string ``TensorProto``."""
    return (_int(1, DATA_TYPES["string"]) + _bytes(2, _tensor_shape(shape), keep_empty=True)
            + b"".join(_bytes(8, v, keep_empty=True) for v in values))


def summary_value(tag: str, simple_value=None, image=None, histo=None, text=None) -> bytes:
    """One ``Summary.Value`` as a whole ``Summary``: field 1 of ``Summary`` is repeated, so
    summaries merge by concatenation.  ``text`` is ``(values, shape)`` of bytes, written as the
    text plugin's string tensor."""
    value = _bytes(1, tag)
    if simple_value is not None:  # a present oneof member is written even when 0
        value += _key(2, 5) + struct.pack("<f", simple_value)
    value += _bytes(4, image or b"") + _bytes(5, histo or b"")
    if text is not None:
        value += _bytes(8, _string_tensor(*text)) + _bytes(9, _bytes(1, _bytes(1, "text")))
    return _bytes(1, value, keep_empty=True)


def event(wall_time: float, step: int = 0, **what) -> bytes:
    """An ``Event`` with one of ``file_version`` (str), ``graph_def``, ``summary`` (bytes) or
    ``tagged_run_metadata`` (``(tag, run_metadata bytes)``)."""
    fields = {"file_version": 3, "graph_def": 4, "summary": 5, "tagged_run_metadata": 8}
    (name, value), = what.items()
    if name == "tagged_run_metadata":
        value = _bytes(1, value[0]) + _bytes(2, value[1])
    return _fixed(1, wall_time, "<d") + _int(2, step) + _bytes(fields[name], value,
                                                                keep_empty=True)


def _attr_value(value) -> bytes:
    """An ``AttrValue``: a dtype name (``"float32"``) as ``type``, a tuple or None as
    ``shape``, a bool as ``b``, an int as ``i``, a float as ``f``, else ``s``."""
    if isinstance(value, str) and value in DATA_TYPES:
        return _int(6, DATA_TYPES[value])
    if value is None or isinstance(value, tuple):
        return _bytes(7, _tensor_shape(value), keep_empty=True)
    if isinstance(value, bool):
        return _key(5, 0) + _varint(value)
    if isinstance(value, int):
        return _key(3, 0) + _varint(value)
    if isinstance(value, float):
        return _key(4, 5) + struct.pack("<f", value)
    return _bytes(2, str(value), keep_empty=True)


def node_def(name: str, op: str, inputs=(), attrs=None) -> bytes:
    """A ``NodeDef``; ``attrs`` (a dict) written as its map, sorted by key (protobuf's
    deterministic order)."""
    entries = (_bytes(1, key) + _bytes(2, _attr_value(value), keep_empty=True)
               for key, value in sorted((attrs or {}).items()))
    return (_bytes(1, name) + _bytes(2, op) + b"".join(_bytes(3, i) for i in inputs)
            + b"".join(_bytes(5, e, keep_empty=True) for e in entries))


def graph_def(nodes, producer: int = 0) -> bytes:
    """A ``GraphDef`` of ``node_def`` messages, with ``versions.producer``."""
    return (b"".join(_bytes(1, n, keep_empty=True) for n in nodes)
            + _bytes(4, _int(1, producer), keep_empty=bool(producer)))


def run_metadata(step_stats) -> bytes:
    """A ``RunMetadata`` holding ``step_stats`` (a :class:`tinyflow.config.StepStats`)."""
    def node(s):
        return (_bytes(1, s.node_name) + _int(2, s.all_start_micros)
                + _int(3, s.op_start_rel_micros) + _int(4, s.op_end_rel_micros)
                + _int(5, s.all_end_rel_micros) + _bytes(8, s.timeline_label))
    devices = (_bytes(1, d.device) + b"".join(_bytes(2, node(s), keep_empty=True)
                                              for s in d.node_stats)
               for d in step_stats.dev_stats)
    return _bytes(1, b"".join(_bytes(1, d, keep_empty=True) for d in devices),
                  keep_empty=True)
