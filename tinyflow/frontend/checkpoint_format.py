"""TensorFlow's V2 checkpoint format, by hand: crc32c, the few protobuf messages, the SSTable.

A checkpoint ``<prefix>`` is two files (``tensorflow/core/util/tensor_bundle``):

* ``<prefix>.data-00000-of-00001``: the tensors' raw bytes, little-endian, C order, one after
  the other (sorted by name here, as TensorFlow's Saver writes them);
* ``<prefix>.index``: a LevelDB-format table (``tensorflow/core/lib/io/table_builder.cc``)
  mapping the key ``""`` to a ``BundleHeaderProto`` (shard count, endianness, version) and each
  tensor's name to a ``BundleEntryProto`` (dtype, shape, shard, offset, size, masked crc32c of
  its bytes).

The table: data blocks of entries ``varint shared | varint unshared | varint value length |
key suffix | value`` (keys prefix-compressed against the previous key, a full key at every
16th, the *restart points*, whose offsets end the block as uint32s, then their count); each
block followed by its compression byte (0: none, the only kind read or written here) and the
masked crc32c of the block and that byte; then an empty meta-index block, an index block (one
entry per data block: a key >= its keys and < the next block's, and the block's handle,
``varint offset | varint size``); then a 48-byte footer: the two handles, zero padding to 40
bytes, the magic ``0xdb4775248b80fb57`` as a little-endian uint64.

Everything read is untrusted: :func:`read_table` and :func:`read_index` check every length,
offset and checksum against the bytes they were given and raise :class:`FormatError` saying what
is wrong; nothing they do allocates more than a small multiple of those bytes.
"""
from __future__ import annotations

import math
import struct
from typing import NamedTuple

import numpy as np

__all__ = ["BundleEntry", "FormatError", "crc32c", "data_file", "mask_crc", "read_index",
           "read_strings", "read_table", "slice_key", "string_bytes", "unmask_crc",
           "write_index", "write_table"]


class FormatError(ValueError):
    """Bytes that are not what the format says; the message says what is wrong."""


# -- crc32c (Castagnoli, reflected polynomial 0x82f63b78) ----------------------------------------
def _byte_table() -> np.ndarray:
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(0x82F63B78), table >> 1)
    return table.astype(np.uint32)


_TABLE = _byte_table()
_TABLE_LIST = _TABLE.tolist()
_BLOCK = 256  # bytes per block: its CRC is _BLOCK table lookups that numpy does all at once
_CHUNK_BLOCKS = 1 << 12  # blocks reduced together (1 MiB): the index temporaries stay ~8 MiB
_MASK_DELTA = 0xA282EAD8


def _raw_crc(data, crc: int = 0) -> int:
    """The CRC register after ``data`` from ``crc``, no inversions (byte at a time, for small
    inputs)."""
    table = _TABLE_LIST
    for byte in bytes(data):
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc


def _shift_columns(nbytes: int) -> list[int]:
    """The 32 columns of the GF(2) matrix taking a CRC register over ``nbytes`` zero bytes
    (the register is linear in its previous value: the zero-extension operator)."""
    columns = [_raw_crc(b"\0", 1 << bit) for bit in range(32)]  # one zero byte
    result = [1 << bit for bit in range(32)]  # identity
    while nbytes:
        if nbytes & 1:
            result = [_apply(columns, c) for c in result]
        columns = [_apply(columns, c) for c in columns]
        nbytes >>= 1
    return result


def _apply(columns: list[int], value: int) -> int:
    out, bit = 0, 0
    while value:
        if value & 1:
            out ^= columns[bit]
        value >>= 1
        bit += 1
    return out


def _byte_tables(columns: list[int]) -> np.ndarray:
    """``(4, 256)`` tables applying the matrix ``columns`` to uint32 values a byte at a time."""
    tables = np.zeros((4, 256), dtype=np.uint32)
    index = np.arange(256)
    for bit in range(32):
        tables[bit // 8][(index >> (bit % 8)) & 1 == 1] ^= np.uint32(columns[bit])
    return tables


def _position_tables() -> np.ndarray:
    """``(_BLOCK, 256)``: row ``j`` is the raw CRC (from a zero register) of a block that is
    zero but for the value at byte ``j``; a block's raw CRC is the xor of its bytes' entries
    (the CRC is linear over GF(2))."""
    rows = [_TABLE]  # the last byte: nothing follows it
    for _ in range(_BLOCK - 1):  # each earlier byte: one more zero byte follows it
        rows.append(_TABLE[rows[-1] & 0xFF] ^ (rows[-1] >> 8))
    return np.ascontiguousarray(np.stack(rows[::-1]))


def _level_tables() -> list[np.ndarray]:
    """Entry ``k``: the byte tables shifting a register over ``_BLOCK * 2**k`` zero bytes."""
    columns, levels = _shift_columns(_BLOCK), []
    while len(levels) < _CHUNK_BLOCKS.bit_length():
        levels.append(_byte_tables(columns))
        columns = [_apply(columns, c) for c in columns]  # over twice as many bytes
    return levels


_POSITIONS = _position_tables()
_POSITION_OFFSETS = (np.arange(_BLOCK) * 256).astype(np.intp)
_LEVELS = _level_tables()


def _chunk_crc(blocks: np.ndarray, register: int) -> int:
    """The CRC register after the ``(n, _BLOCK)`` uint8 ``blocks`` from ``register``: each
    block's raw CRC by table lookups, side by side, then pairs combined as
    ``shift(left) ^ right``, level by level."""
    crcs = np.bitwise_xor.reduce(_POSITIONS.ravel()[blocks + _POSITION_OFFSETS], axis=1)
    # A register ``r`` going into the data acts as ``r`` xor-ed into its first four bytes.
    crcs[0] ^= np.uint32(_POSITIONS[0][register & 0xFF] ^ _POSITIONS[1][(register >> 8) & 0xFF]
                         ^ _POSITIONS[2][(register >> 16) & 0xFF] ^ _POSITIONS[3][register >> 24])
    for tables in _LEVELS:
        if len(crcs) == 1:
            break
        if len(crcs) % 2:  # blocks of zeros in front change no CRC from a zero register
            crcs = np.concatenate([np.zeros(1, np.uint32), crcs])
        left, right = crcs[0::2], crcs[1::2]
        crcs = (tables[0][left & 0xFF] ^ tables[1][(left >> 8) & 0xFF]
                ^ tables[2][(left >> 16) & 0xFF] ^ tables[3][left >> 24] ^ right)
    return int(crcs[0])


def crc32c(data) -> int:
    """The CRC-32C (Castagnoli) of ``data`` (bytes-like), as ``crc32c::Value``.

    Inputs of a block (256 bytes) or more are cut into blocks whose CRCs come from per-position
    tables in a few numpy operations, then combined with the zero-extension tables; the rest a
    byte at a time."""
    buffer = np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
    whole = len(buffer) // _BLOCK
    crc = 0xFFFFFFFF
    blocks = buffer[:whole * _BLOCK].reshape(whole, _BLOCK)
    for start in range(0, whole, _CHUNK_BLOCKS):
        crc = _chunk_crc(blocks[start:start + _CHUNK_BLOCKS], crc)
    return _raw_crc(buffer[whole * _BLOCK:], crc) ^ 0xFFFFFFFF


def mask_crc(crc: int) -> int:
    """``crc32c::Mask``: a CRC stored beside the data it covers is rotated and offset."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask_crc(masked: int) -> int:
    rotated = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rotated >> 17) | (rotated << 15)) & 0xFFFFFFFF


# -- protobuf wire format: varints and length-delimited fields -----------------------------------
def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int32/int64 as protobuf writes them: ten bytes
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _read_varint(data: bytes, pos: int, what: str) -> tuple[int, int]:
    """``(value, position after it)``; FormatError past the end or over ten bytes."""
    value = shift = 0
    while True:
        if pos >= len(data):
            raise FormatError(f"{what}: a varint runs past the end")
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift >= 70:
            raise FormatError(f"{what}: a varint longer than ten bytes")


def _field(number: int, value) -> bytes:
    """One field: an int as a varint (wire type 0), bytes length-delimited (2); a value of
    zero or empty is left out, as proto3 does."""
    if isinstance(value, (bytes, bytearray)):
        return _varint(number << 3 | 2) + _varint(len(value)) + bytes(value)
    return _varint(number << 3) + _varint(value) if value else b""


def _fields(data: bytes, what: str) -> dict:
    """``{field number: [values]}`` of a message: varints as ints, length-delimited fields as
    bytes, fixed32/fixed64 as ints; FormatError on anything malformed."""
    fields: dict[int, list] = {}
    pos = 0
    while pos < len(data):
        key, pos = _read_varint(data, pos, what)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _read_varint(data, pos, what)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            if pos + size > len(data):
                raise FormatError(f"{what}: a fixed field runs past the end")
            value = int.from_bytes(data[pos:pos + size], "little")
            pos += size
        elif wire == 2:
            size, pos = _read_varint(data, pos, what)
            if size > len(data) - pos:
                raise FormatError(f"{what}: a field of {size} bytes runs past the end")
            value, pos = data[pos:pos + size], pos + size
        else:
            raise FormatError(f"{what}: wire type {wire} of field {number} is not read here")
        if number == 0:
            raise FormatError(f"{what}: field number 0")
        fields.setdefault(number, []).append(value)
    return fields


def _message(fields: dict, number: int, what: str) -> bytes:
    """The bytes of the last value of a message field (empty when absent)."""
    value = fields.get(number, [b""])[-1]
    if not isinstance(value, bytes):
        raise FormatError(f"{what}: field {number} is not a message")
    return value


def _int(fields: dict, number: int, bits: int = 64) -> int:
    """The last value of a signed integer field (0 when absent), as two's complement."""
    value = fields.get(number, [0])[-1]
    if not isinstance(value, int):
        raise FormatError(f"field {number} is not an integer")
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


# -- the tensor bundle's messages -----------------------------------------------------------------
# DataType enum values (tensorflow/core/framework/types.proto) <-> numpy dtypes
DTYPES = {1: "float32", 2: "float64", 3: "int32", 4: "uint8", 5: "int16", 6: "int8",
          9: "int64", 10: "bool", 17: "uint16", 19: "float16", 22: "uint32", 23: "uint64"}
DTYPE_CODES = {name: code for code, name in DTYPES.items()}
STRING_CODE = 7  # DT_STRING: BundleEntry's dtype "string", elements as bytes (object arrays)
MAX_RANK = 64


class BundleEntry(NamedTuple):
    """A tensor's ``BundleEntryProto``: numpy dtype name, shape, shard, offset, size in bytes,
    masked crc32c; a partitioned variable's, the ``slices`` its entries under
    :func:`slice_key` hold (each ``((start, length), ...)`` per axis) and no bytes of its own."""

    dtype: str
    shape: tuple
    shard_id: int
    offset: int
    size: int
    crc32c: int
    slices: tuple = ()


def _entry_bytes(code: int, shape: tuple, offset: int, size: int, crc: int) -> bytes:
    """The ``BundleEntryProto`` of a tensor of DataType ``code`` and ``shape`` stored in
    ``size`` bytes at ``offset`` with the masked crc ``crc``."""
    dims = b"".join(_field(2, _field(1, int(d)) or b"") for d in shape)
    return (_field(1, code) + _field(2, dims) + _field(4, offset)
            + _field(5, size) + (struct.pack("<BI", 6 << 3 | 5, crc) if crc else b""))


def string_bytes(values) -> tuple[bytes, int]:
    """A string tensor's bytes in a data file and their crc32c, as tensor_bundle's
    ``WriteStringTensor``: each element's length as a varint, the masked crc32c of the lengths
    (each taken as a little-endian uint32), the elements; the entry's crc32c covers the
    lengths so taken, the masked crc and the elements."""
    lengths = struct.pack(f"<{len(values)}I", *(len(v) & 0xFFFFFFFF for v in values))
    masked = struct.pack("<I", mask_crc(crc32c(lengths)))
    joined = b"".join(values)
    return (b"".join(_varint(len(v)) for v in values) + masked + joined,
            crc32c(lengths + masked + joined))


def read_strings(raw: bytes, count: int, crc: int) -> list:
    """The ``count`` elements (bytes) of a string tensor's ``raw`` bytes (:func:`string_bytes`)
    whose crc32c is ``crc``, every length and checksum checked; FormatError saying what is
    wrong."""
    what, lengths, pos = "a string tensor", [], 0
    for _ in range(count):
        length, pos = _read_varint(raw, pos, what)
        lengths.append(length)
    if pos + 4 > len(raw) or sum(lengths) != len(raw) - pos - 4:
        raise FormatError(f"{what}: lengths adding up to {sum(lengths)} bytes, but "
                          f"{len(raw) - pos - 4} follow them")
    as_uint32 = struct.pack(f"<{count}I", *(n & 0xFFFFFFFF for n in lengths))
    if (unmask_crc(struct.unpack_from("<I", raw, pos)[0]) != crc32c(as_uint32)
            or crc32c(as_uint32 + bytes(raw[pos:])) != crc):
        raise FormatError(f"{what}: its bytes do not match their checksum")
    values, pos = [], pos + 4
    for length in lengths:
        values.append(bytes(raw[pos:pos + length]))
        pos += length
    return values


def _header_bytes() -> bytes:
    """``BundleHeaderProto``: one shard, little-endian, version producer 1 (min consumer 0)."""
    return _field(1, 1) + _field(3, _field(1, 1))


def _parse_entry(name: str, data: bytes) -> BundleEntry:
    what = f"the index entry of '{name}'"
    fields = _fields(data, what)
    code = _int(fields, 1, 32)
    if code not in DTYPES and code != STRING_CODE:
        raise FormatError(f"{what}: dtype code {code} (DataType enum) is not one TinyFlow reads")
    shape_fields = _fields(_message(fields, 2, what), what)
    if _int(shape_fields, 3, 32):
        raise FormatError(f"{what}: a shape of unknown rank")
    dims = shape_fields.get(2, [])
    if len(dims) > MAX_RANK:
        raise FormatError(f"{what}: {len(dims)} dimensions, more than {MAX_RANK}")
    shape = tuple(_int(_fields(_message({2: [d]}, 2, what), what), 1) for d in dims)
    if any(d < 0 for d in shape):
        raise FormatError(f"{what}: a negative dimension in shape {shape}")
    if 7 in fields:  # TensorSliceProto's: its extents, each start and length (-1: all)
        slices = tuple(_slice(_message({7: [m]}, 7, what), shape, what) for m in fields[7])
        return BundleEntry(DTYPES.get(code, "string"), shape, 0, 0, 0, 0, slices)
    offset, size = _int(fields, 4), _int(fields, 5)
    if offset < 0 or size < 0:
        raise FormatError(f"{what}: a negative offset {offset} or size {size}")
    if code == STRING_CODE:  # each element's length takes a byte at least, then a crc
        if size < math.prod(shape) + 4:
            raise FormatError(f"{what}: {size} bytes, too few for a string tensor of shape "
                              f"{list(shape)}")
        return BundleEntry("string", shape, _int(fields, 3, 32), offset, size,
                           _int(fields, 6, 33) & 0xFFFFFFFF)
    if size != math.prod(shape) * np.dtype(DTYPES[code]).itemsize:
        raise FormatError(f"{what}: {size} bytes, not the "
                          f"{math.prod(shape) * np.dtype(DTYPES[code]).itemsize} of a "
                          f"{DTYPES[code]} tensor of shape {list(shape)}")
    return BundleEntry(DTYPES[code], shape, _int(fields, 3, 32), offset, size,
                       _int(fields, 6, 33) & 0xFFFFFFFF)


def _slice(data: bytes, shape: tuple, what: str) -> tuple:
    """One ``TensorSliceProto``: ``((start, length), ...)``, checked inside ``shape``."""
    extents = _fields(data, what).get(1, [])
    if len(extents) != len(shape):
        raise FormatError(f"{what}: a slice of {len(extents)} axes in a tensor of {len(shape)}")
    result = []
    for extent, size in zip(extents, shape):
        fields = _fields(_message({1: [extent]}, 1, what), what)
        start, length = _int(fields, 1), _int(fields, 2) if 2 in fields else -1
        if not (0 <= start <= size and (length == -1 and start == 0
                                        or 0 <= length <= size - start)):
            raise FormatError(f"{what}: a slice start {start} length {length} outside {shape}")
        result.append((start, length))
    return tuple(result)


def slice_key(name: str, extents) -> bytes:
    """The key of a slice's entry (``checkpoint::EncodeTensorNameSlice``): OrderedCode's 0, the
    name, the number of axes, then each axis' start and length (-1: all)."""
    escaped = b"".join(b"\x00\xff" if c == 0 else b"\xff\x00" if c == 0xFF else bytes([c])
                       for c in name.encode("utf-8"))
    key = b"\x00" + escaped + b"\x00\x01" + _num_increasing(len(extents))
    return key + b"".join(_signed_increasing(v) for extent in extents for v in extent)


def _num_increasing(value: int) -> bytes:
    """OrderedCode's WriteNumIncreasing: the byte count, then the bytes big-endian."""
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return bytes([len(raw)]) + raw


def _signed_increasing(value: int) -> bytes:
    """OrderedCode's WriteSignedNumIncreasing: ``n`` bytes of which the first ``n`` bits say
    the length, the rest the value in two's complement (n = 1 holds -64..63)."""
    magnitude = ~value if value < 0 else value
    length = max(1, -(-(magnitude.bit_length() + 1) // 7))
    if length > 8:
        raise FormatError(f"a slice bound {value} too large")
    raw = (value & ((1 << 8 * length) - 1)).to_bytes(length, "big")
    header = (0xFF00 >> length) & 0xFF  # the top ``length`` bits set
    return bytes([raw[0] ^ header]) + raw[1:]


def data_file(prefix: str, shard: int = 0, shards: int = 1) -> str:
    """The name of a checkpoint's data file: ``<prefix>.data-00000-of-00001``."""
    return f"{prefix}.data-{shard:05d}-of-{shards:05d}"


def write_index(arrays: dict, data) -> bytes:
    """Write ``{name: array}``'s bytes to the binary file ``data``, sorted by name (UTF-8), and
    return the index file's bytes."""
    entries, offset = [], 0
    for name in sorted(arrays, key=lambda n: n.encode("utf-8")):
        array = np.asarray(arrays[name], order="C")  # np.ascontiguousarray makes 0-d 1-d
        if array.dtype == object:  # strings: bytes, or str written as UTF-8
            code, (raw, crc) = STRING_CODE, string_bytes([
                v.encode("utf-8") if isinstance(v, str) else bytes(v)
                for v in array.ravel().tolist()])
        elif array.dtype.name in DTYPE_CODES:
            array = array.astype(array.dtype.newbyteorder("<"), copy=False)
            raw, code = memoryview(array.reshape(-1)).cast("B"), DTYPE_CODES[array.dtype.name]
            crc = crc32c(raw)
        else:
            raise TypeError(f"variable '{name}' has dtype {array.dtype}, which TinyFlow does "
                            f"not write to a checkpoint")
        data.write(raw)
        entries.append((name.encode("utf-8"), _entry_bytes(
            code, array.shape, offset, len(raw), mask_crc(crc))))
        offset += len(raw)
    return write_table([(b"", _header_bytes())] + entries)


def read_index(data: bytes) -> tuple[int, dict]:
    """``(number of shards, {name: BundleEntry, or a str saying why its entry cannot be
    read}``) of an index file's bytes, its header checked (little-endian, a version this reader
    knows); FormatError on anything wrong with the file as a whole.  An entry TinyFlow does not
    read (a dtype such as complex64) matters only to whoever asks for it."""
    table = read_table(data)
    if b"" not in table:
        raise FormatError("no header entry (key \"\")")
    header = _fields(table.pop(b""), "the header entry")
    shards, endianness = _int(header, 1, 32), _int(header, 2, 32)
    version = _fields(_message(header, 3, "the header"), "the header's version")
    if endianness != 0:
        raise FormatError("a big-endian checkpoint, which TinyFlow does not read")
    if _int(version, 2, 32) > 1:
        raise FormatError(f"written for readers of version {_int(version, 2, 32)} or later")
    if not 1 <= shards <= 1 << 20:
        raise FormatError(f"{shards} shards")
    entries = {}
    for key, value in table.items():
        if key.startswith(b"\x00"):  # a slice of a partitioned variable: by its key
            try:
                entries[key] = _parse_entry(repr(key[:80]), value)
            except FormatError as err:
                entries[key] = str(err)
            continue
        try:
            name = key.decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError(f"a key that is not UTF-8: {key[:80]!r}") from None
        try:
            entry = _parse_entry(name, value)
            if not 0 <= entry.shard_id < shards:
                raise FormatError(f"the index entry of '{name}': shard {entry.shard_id} of "
                                  f"{shards}")
            entries[name] = entry
        except FormatError as err:
            entries[name] = str(err)
    return shards, entries


# -- the SSTable -----------------------------------------------------------------------------------
MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
BLOCK_SIZE = 262144  # table::Options' defaults, which the tensor bundle keeps
RESTART_INTERVAL = 16


class _BlockBuilder:
    """``block_builder.cc``: prefix-compressed entries, a restart point every ``interval``."""

    def __init__(self, interval: int):
        self.interval, self.buffer, self.restarts = interval, bytearray(), [0]
        self.count, self.last_key = 0, b""

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.count < self.interval:
            limit = min(len(key), len(self.last_key))
            while shared < limit and key[shared] == self.last_key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buffer))
            self.count = 0
        self.buffer += (_varint(shared) + _varint(len(key) - shared) + _varint(len(value))
                        + key[shared:] + value)
        self.last_key, self.count = key, self.count + 1

    def size(self) -> int:
        return len(self.buffer) + 4 * len(self.restarts) + 4

    def finish(self) -> bytes:
        return bytes(self.buffer) + struct.pack(f"<{len(self.restarts) + 1}I", *self.restarts,
                                                len(self.restarts))


def _separator(start: bytes, limit: bytes) -> bytes:
    """``FindShortestSeparator``: a short key >= ``start`` and < ``limit``."""
    common = 0
    while common < min(len(start), len(limit)) and start[common] == limit[common]:
        common += 1
    if common < min(len(start), len(limit)) and start[common] < 0xFF \
            and start[common] + 1 < limit[common]:
        return start[:common] + bytes([start[common] + 1])
    return start


def _successor(key: bytes) -> bytes:
    """``FindShortSuccessor``: a short key >= ``key``."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


def write_table(items: list) -> bytes:
    """The table of ``[(key, value)]`` (bytes, keys strictly increasing) as TensorFlow's
    ``TableBuilder`` writes it without compression."""
    out, index, block, pending, last = bytearray(), _BlockBuilder(1), None, None, b""

    def write_block(contents: bytes) -> bytes:
        handle = _varint(len(out)) + _varint(len(contents))
        out.extend(contents + b"\0" + struct.pack("<I", mask_crc(crc32c(contents + b"\0"))))
        return handle

    block = _BlockBuilder(RESTART_INTERVAL)
    for key, value in items:
        if block.count and len(key) + len(value) >= 2 * BLOCK_SIZE:  # an overly large entry
            pending, block = write_block(block.finish()), _BlockBuilder(RESTART_INTERVAL)
        if pending is not None:
            index.add(_separator(last, key), pending)
            pending = None
        block.add(key, value)
        last = key
        if block.size() >= BLOCK_SIZE:
            pending, block = write_block(block.finish()), _BlockBuilder(RESTART_INTERVAL)
    if len(block.buffer):
        pending = write_block(block.finish())
    meta_handle = write_block(_BlockBuilder(RESTART_INTERVAL).finish())
    if pending is not None:
        index.add(_successor(last), pending)
    index_handle = write_block(index.finish())
    handles = meta_handle + index_handle
    return bytes(out) + handles + b"\0" * (40 - len(handles)) + struct.pack("<Q", MAGIC)


def _handle(data: bytes, pos: int, what: str) -> tuple[int, int, int]:
    offset, pos = _read_varint(data, pos, what)
    size, pos = _read_varint(data, pos, what)
    return offset, size, pos


def _block(data: bytes, offset: int, size: int, what: str) -> bytes:
    """The contents of the block at ``offset``, its trailer checked."""
    if offset + size + 5 > len(data) - FOOTER_SIZE:
        raise FormatError(f"{what} (offset {offset}, {size} bytes) runs past the end of the "
                          f"table ({len(data)} bytes)")
    contents, kind = data[offset:offset + size], data[offset + size]
    (masked,) = struct.unpack_from("<I", data, offset + size + 1)
    if unmask_crc(masked) != crc32c(data[offset:offset + size + 1]):
        raise FormatError(f"{what} at offset {offset}: checksum mismatch (a corrupt file)")
    if kind != 0:
        raise FormatError(f"{what} at offset {offset}: compression type {kind} ("
                          f"{'snappy' if kind == 1 else 'unknown'}), which TinyFlow does not "
                          f"read (TensorFlow writes checkpoints uncompressed)")
    return contents


def _block_entries(contents: bytes, what: str):
    """The ``(key, value)`` entries of a block, in order."""
    if len(contents) < 4:
        raise FormatError(f"{what}: {len(contents)} bytes, too short for a block")
    (restarts,) = struct.unpack_from("<I", contents, len(contents) - 4)
    end = len(contents) - 4 - 4 * restarts
    if restarts == 0 or end < 0:
        raise FormatError(f"{what}: {restarts} restart points do not fit its "
                          f"{len(contents)} bytes")
    pos, key = 0, b""
    while pos < end:
        shared, pos = _read_varint(contents, pos, what)
        unshared, pos = _read_varint(contents, pos, what)
        size, pos = _read_varint(contents, pos, what)
        if shared > len(key) or unshared + size > end - pos:
            raise FormatError(f"{what}: an entry at offset {pos} runs past the block")
        key = key[:shared] + contents[pos:pos + unshared]
        value = contents[pos + unshared:pos + unshared + size]
        pos += unshared + size
        yield key, value


def read_table(data: bytes) -> dict:
    """``{key: value}`` of a table's bytes (every block's checksum checked, keys strictly
    increasing); FormatError on anything malformed."""
    if len(data) < FOOTER_SIZE:
        raise FormatError(f"{len(data)} bytes, shorter than a table's footer ({FOOTER_SIZE})")
    footer = data[-FOOTER_SIZE:]
    (magic,) = struct.unpack_from("<Q", footer, 40)
    if magic != MAGIC:
        raise FormatError(f"bad magic number {magic:#018x} (not a TensorFlow table, or cut "
                          f"short)")
    _, _, pos = _handle(footer, 0, "the footer")
    index_offset, index_size, _ = _handle(footer, pos, "the footer")
    table, last = {}, None
    index = _block(data, index_offset, index_size, "the index block")
    for _, handle in _block_entries(index, "the index block"):
        offset, size, _ = _handle(handle, 0, "a block handle")
        for key, value in _block_entries(_block(data, offset, size, "a data block"),
                                         "a data block"):
            if last is not None and key <= last:
                raise FormatError(f"keys out of order: {key[:80]!r} after {last[:80]!r}")
            table[key], last = value, key
    return table
