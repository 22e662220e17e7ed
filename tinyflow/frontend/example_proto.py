"""``tf.train.Example`` and its parts (``Features``, ``Feature``, ``BytesList``, ``FloatList``,
``Int64List``, ``SequenceExample``, ``FeatureList``, ``FeatureLists``) as protobuf's Python
classes behave, with protobuf's wire format written and read here (no protobuf dependency;
``tensorflow/core/example/example.proto`` and ``feature.proto``).

Writing: fields in number order, map entries in key order (protobuf's deterministic bytes, what
TensorFlow's ``SerializeToString(deterministic=True)`` gives), repeated numbers packed.
Reading takes packed and unpacked repeated numbers, merges a repeated message field, lets a
later map entry replace an earlier one and skips unknown fields (groups too, nested at most
100 deep), as protobuf does.  Serialized bytes are untrusted input: anything malformed (a
length past the end, a varint over 10 bytes, a key not UTF-8, a wire type 6 or 7) is a
:class:`DecodeError`; what is built is bounded by the input's size.
"""
from __future__ import annotations

import math
import numbers
import struct
from typing import ClassVar

import numpy as np

from ..nnvm import host_memory
from ..nnvm.errors import ResourceExhaustedError

__all__ = ["BytesList", "DecodeError", "Example", "Feature", "FeatureList", "FeatureLists",
           "Features", "FloatList", "Int64List", "SequenceExample"]

_VARINT, _FIXED64, _LENGTH, _START_GROUP, _END_GROUP, _FIXED32 = 0, 1, 2, 3, 4, 5
_GROUP_DEPTH = 100  # protobuf's default recursion limit
_LARGE = 1 << 20  # a message this large is checked against the free memory first


class DecodeError(Exception):
    """Bytes that are not a valid message (``google.protobuf.message.DecodeError``)."""


# -- wire format -------------------------------------------------------------------------------
def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # a negative int64 as its two's complement: 10 bytes
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _read_varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= end or shift >= 70:
            raise DecodeError("truncated or overlong varint")
        byte = data[pos]
        result |= (byte & 0x7F) << shift
        pos += 1
        shift += 7
        if not byte & 0x80:
            return result & ((1 << 64) - 1), pos


def _fields(data: bytes, pos: int, end: int):
    """``(number, wire_type, payload, pos)`` of each field in ``data[pos:end]``; payload is
    an int (varint), bytes (fixed and length-delimited) or None (a skipped group)."""
    while pos < end:
        key, pos = _read_varint(data, pos, end)
        number, wire = key >> 3, key & 7
        if number == 0 or wire in (6, 7) or wire == _END_GROUP:
            raise DecodeError(f"invalid field key {key}")
        if wire == _VARINT:
            payload, pos = _read_varint(data, pos, end)
        elif wire in (_FIXED64, _FIXED32, _LENGTH):
            if wire == _LENGTH:
                size, pos = _read_varint(data, pos, end)
            else:
                size = 8 if wire == _FIXED64 else 4
            if size > end - pos:
                raise DecodeError("a field runs past the end of its message")
            payload, pos = data[pos:pos + size], pos + size
        else:
            payload, pos = None, _skip_group(data, pos, end, number)
        yield number, wire, payload


def _skip_group(data, pos, end, number) -> int:
    """The position after the end-group key closing the group ``number`` opened (iterative)."""
    open_groups = [number]
    while open_groups:
        key, pos = _read_varint(data, pos, end)
        wire = key & 7
        if wire == _END_GROUP:
            if key >> 3 != open_groups.pop():
                raise DecodeError("mismatched end-group key")
        elif wire == _START_GROUP:
            if len(open_groups) >= _GROUP_DEPTH:
                raise DecodeError("groups nested too deeply")
            open_groups.append(key >> 3)
        elif wire == _VARINT:
            pos = _read_varint(data, pos, end)[1]
        elif wire in (_FIXED64, _FIXED32, _LENGTH):
            size = 8 if wire == _FIXED64 else 4
            if wire == _LENGTH:
                size, pos = _read_varint(data, pos, end)
            if size > end - pos:
                raise DecodeError("a field runs past the end of its message")
            pos += size
        else:
            raise DecodeError(f"invalid field key {key}")
    return pos


def _length_delimited(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | _LENGTH) + _varint(len(payload)) + payload


# -- values of repeated scalar fields ----------------------------------------------------------
def _check_int64(value) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("Field tensorflow.Int64List.value: Expected an int, got a boolean.")
    if not isinstance(value, numbers.Integral):
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer")
    value = int(value)
    if not -(1 << 63) <= value < 1 << 63:
        raise ValueError(f"Value out of range: {value}")
    return value


def _check_float(value) -> float:
    if not isinstance(value, numbers.Real):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    with np.errstate(over="ignore"):  # protobuf keeps a float field as a float32: 1e40 -> inf
        return float(np.float32(value))


def _check_bytes(value) -> bytes:
    if not isinstance(value, (bytes, bytearray)):
        raise TypeError(f"expected bytes, {type(value).__name__} found")
    return bytes(value)


class _Repeated:
    """A repeated scalar field (``int64_list.value``): a list checking what goes in, which
    marks its message set when it changes."""

    def __init__(self, owner, check):
        self._owner, self._check, self._items = owner, check, []

    def append(self, value):
        self._items.append(self._check(value))
        self._owner._mark()

    def extend(self, values):
        self._items.extend([self._check(v) for v in values])
        self._owner._mark()

    def insert(self, index, value):
        self._items.insert(index, self._check(value))
        self._owner._mark()

    def __setitem__(self, index, value):
        self._items[index] = ([self._check(v) for v in value] if isinstance(index, slice)
                              else self._check(value))
        self._owner._mark()

    def __delitem__(self, index):
        del self._items[index]

    def pop(self, index=-1):
        return self._items.pop(index)

    def remove(self, value):
        self._items.remove(value)

    def __getitem__(self, index):
        return self._items[index]

    def __len__(self):
        return len(self._items)

    def __iter__(self):
        return iter(self._items)

    def __eq__(self, other):
        return list(self) == list(other) if hasattr(other, "__iter__") else NotImplemented

    def __repr__(self):
        return repr(self._items)


class _RepeatedMessages(_Repeated):
    """A repeated message field (``feature_list.feature``): ``add(**fields)`` makes one."""

    def __init__(self, owner, message_class):
        super().__init__(owner, lambda value: message_class._copied(value, owner))
        self._class = message_class

    def add(self, **fields):
        item = self._class(**fields)
        item._parent = self._owner
        self._items.append(item)
        self._owner._mark()
        return item


class _MessageMap:
    """A map from strings to messages (``features.feature``): reading a missing key adds an
    empty message there, as protobuf's message maps do."""

    def __init__(self, owner, message_class):
        self._owner, self._class, self._items = owner, message_class, {}

    def __getitem__(self, key):
        key = _check_key(key)
        if key not in self._items:
            self._items[key] = self._class(_parent=self._owner)
            self._owner._mark()
        return self._items[key]

    def get_or_create(self, key):
        return self[key]

    def __setitem__(self, key, value):
        raise ValueError("Message objects may not be assigned")

    def __delitem__(self, key):
        del self._items[key]

    def __contains__(self, key):
        return key in self._items

    def __len__(self):
        return len(self._items)

    def __iter__(self):
        return iter(self._items)

    def get(self, key, default=None):
        return self._items.get(key, default)

    def keys(self):
        return self._items.keys()

    def values(self):
        return self._items.values()

    def items(self):
        return self._items.items()

    def clear(self):
        self._items.clear()

    def _set(self, key, value):
        value._parent = self._owner
        self._items[_check_key(key)] = value
        self._owner._mark()

    def __eq__(self, other):
        return dict(self.items()) == dict(other.items()) if hasattr(other, "items") \
            else NotImplemented

    def __repr__(self):
        return repr(dict(self._items))


def _check_key(key) -> str:
    if not isinstance(key, str):
        raise TypeError(f"map keys are strings, got {type(key).__name__}")
    return key


# -- messages ----------------------------------------------------------------------------------
class _Message:
    """A message: ``_FIELDS`` is ``((number, name, kind, type), ...)``, kind one of
    ``"int64"``, ``"float"``, ``"bytes"`` (repeated scalars), ``"message"``, ``"messages"``
    (repeated) and ``"map"`` (string keys); the names in ``_ONEOF`` are one oneof, ``kind``."""

    _FIELDS: tuple = ()
    _ONEOF: tuple = ()
    _CHECKS: ClassVar[dict] = {"int64": _check_int64, "float": _check_float, "bytes": _check_bytes}

    def __init__(self, _parent=None, **fields):
        self._parent, self._values, self._set = _parent, {}, set()
        names = {name: (kind, kind_type) for _, name, kind, kind_type in self._FIELDS}
        for name, value in fields.items():
            if name not in names:
                raise ValueError(f'Protocol message {type(self).__name__} has no "{name}" '
                                 f'field.')
            if value is None:
                continue
            kind, kind_type = names[name]
            if kind == "message":
                if not isinstance(value, (dict, kind_type)):
                    raise TypeError(
                        f"Parameter to initialize message field must be dict or instance of "
                        f"same class: expected {kind_type.__name__} got "
                        f"{type(value).__name__}.")
                self._field(name)._merge(kind_type._copied(value, self))
                self._field(name)._mark()  # set, even when empty
            elif kind == "map":
                for key, item in dict(value).items():
                    self._field(name)._set(key, kind_type._copied(item, self))
            else:
                self._field(name).extend(value)

    @classmethod
    def _copied(cls, value, parent):
        if isinstance(value, dict):
            value = cls(**value)
        elif not isinstance(value, cls):
            raise TypeError(f"expected {cls.__name__}, got {type(value).__name__}")
        copy = cls.FromString(value.SerializeToString())
        copy._parent = parent
        return copy

    def _field(self, name):
        """The field's value, made empty on first use (a message field is not set by this)."""
        if name not in self._values:
            _, _, kind, kind_type = next(f for f in self._FIELDS if f[1] == name)
            self._values[name] = (
                kind_type(_parent=self) if kind == "message"
                else _MessageMap(self, kind_type) if kind == "map"
                else _RepeatedMessages(self, kind_type) if kind == "messages"
                else _Repeated(self, self._CHECKS[kind]))
        return self._values[name]

    def __getattr__(self, name):
        if name.startswith("_") or not any(f[1] == name for f in self._FIELDS):
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        return self._field(name)

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        kind = next((f[2] for f in self._FIELDS if f[1] == name), None)
        if kind is None:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        what = "message field" if kind == "message" else "repeated field"
        raise AttributeError(f'Assignment not allowed to {what} "{name}" in protocol message '
                             f'object.')

    def _mark(self):
        """This message changed: it is set in its parent (the oneof's other fields cleared)."""
        parent = self._parent
        if parent is None:
            return
        for name, value in list(parent._values.items()):
            if value is self:
                if name in parent._ONEOF:
                    for other in parent._ONEOF:
                        if other != name:
                            parent._values.pop(other, None)
                            parent._set.discard(other)
                parent._set.add(name)
        parent._mark()

    def _merge(self, other):
        self.MergeFromString(other.SerializeToString())

    # -- protobuf's message API ----------------------------------------------------------------
    def HasField(self, name) -> bool:
        kind = next((f[2] for f in self._FIELDS if f[1] == name), None)
        if kind != "message":
            raise ValueError(f'Protocol message has no singular "{name}" field.')
        return name in self._set

    def WhichOneof(self, oneof_group):
        if oneof_group != "kind" or not self._ONEOF:
            raise ValueError(f'Protocol message has no oneof "{oneof_group}" field.')
        return next((name for name in self._ONEOF if name in self._set), None)

    def ClearField(self, name):
        self._values.pop(name, None)
        self._set.discard(name)

    def Clear(self):
        self._values.clear()
        self._set.clear()

    def CopyFrom(self, other):
        if other is self:
            return
        self.Clear()
        self.MergeFrom(other)

    def MergeFrom(self, other):
        if not isinstance(other, type(self)):
            raise TypeError(f"Parameter to MergeFrom() must be instance of same class: "
                            f"expected {type(self).__name__} got {type(other).__name__}.")
        self.MergeFromString(other.SerializeToString())

    def ListFields(self):
        return [(name, self._values[name]) for _, name, kind, _ in self._FIELDS
                if (name in self._set if kind == "message"
                    else name in self._values and len(self._values[name]))]

    def ByteSize(self) -> int:
        return len(self.SerializeToString())

    def SerializeToString(self, deterministic=None) -> bytes:
        """The message's bytes: fields in number order, map entries in key order."""
        out = []
        for number, name, kind, _ in self._FIELDS:
            value = self._values.get(name)
            if value is None or (kind == "message" and name not in self._set):
                continue
            if kind == "message":
                out.append(_length_delimited(number, value.SerializeToString()))
            elif kind == "messages":
                out.extend(_length_delimited(number, v.SerializeToString()) for v in value)
            elif kind == "map":
                out.extend(_length_delimited(number, _length_delimited(1, key.encode())
                                             + _length_delimited(2, value[key]
                                                                 .SerializeToString()))
                           for key in sorted(value.keys()))
            elif kind == "bytes":
                out.extend(_length_delimited(number, v) for v in value)
            elif len(value):
                packed = (b"".join(_varint(v) for v in value) if kind == "int64"
                          else np.asarray(list(value), dtype="<f4").tobytes())
                out.append(_length_delimited(number, packed))
        return b"".join(out)

    def MergeFromString(self, data) -> int:
        """Merge the message in ``data`` (bytes) into this one; returns its length."""
        data = bytes(data)
        if len(data) > _LARGE:  # Python's values take up to ~41 bytes per 4 of input
            _check_memory(48 * len(data), type(self).__name__)
        try:
            self._read(data, 0, len(data))
        except DecodeError as err:  # protobuf's message, with what was wrong
            raise DecodeError(f"Error parsing message with type 'tensorflow.{type(self).__name__}'"
                              f": Wire format was corrupt ({err})") from None
        return len(data)

    def ParseFromString(self, data) -> int:
        self.Clear()
        return self.MergeFromString(data)

    @classmethod
    def FromString(cls, data):
        message = cls()
        message.MergeFromString(data)
        return message

    def _read(self, data, pos, end):
        by_number = {f[0]: f for f in self._FIELDS}
        for number, wire, payload in _fields(data, pos, end):
            field = by_number.get(number)
            if field is None:
                continue  # unknown: skipped
            _, name, kind, kind_type = field
            if wire != _LENGTH and not (kind == "int64" and wire == _VARINT
                                        or kind == "float" and wire == _FIXED32):
                continue  # a known field with another wire type: unknown, as protobuf reads it
            if kind == "message":
                self._field(name)._read(payload, 0, len(payload))
                self._field(name)._mark()
            elif kind == "messages":
                item = kind_type(_parent=self)
                item._read(payload, 0, len(payload))
                self._field(name)._items.append(item)
                self._mark()
            elif kind == "map":
                key, value = _map_entry(payload, kind_type)
                self._field(name)._set(key, value)
            else:
                self._field(name)._items.extend(_scalars(kind, wire, payload))
                self._mark()

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self.SerializeToString() == other.SerializeToString()

    __hash__ = None

    def __str__(self):
        return "".join(_text(self, ""))

    def __repr__(self):
        return str(self)


def _check_memory(need: int, what: str):
    """ResourceExhaustedError when the values of a large message cannot fit in memory now."""
    free, source = host_memory.host_available_bytes()
    if need > free:
        raise ResourceExhaustedError(f"a serialized {what} of {need // 48} bytes needs about "
                                     f"{need} bytes as Python values, more than the {free} "
                                     f"free ({source})")


def _map_entry(payload: bytes, value_class):
    key, value = "", value_class()
    for number, wire, field in _fields(payload, 0, len(payload)):
        if number == 1 and wire == _LENGTH:
            try:
                key = field.decode("utf-8")
            except UnicodeDecodeError:
                raise DecodeError("a map key is not valid UTF-8") from None
        elif number == 2 and wire == _LENGTH:
            value._read(field, 0, len(field))
    return key, value


def _scalars(kind, wire, payload) -> list:
    """The values of one field of a repeated scalar: one (unpacked) or many (packed)."""
    if kind == "bytes":
        return [payload]
    if kind == "float":
        if wire == _FIXED32:
            return [struct.unpack("<f", payload)[0]]
        if len(payload) % 4:
            raise DecodeError("a packed float field's length is not a multiple of 4")
        return np.frombuffer(payload, dtype="<f4").astype(np.float64).tolist()
    if wire == _VARINT:
        return [payload - (1 << 64) if payload >= 1 << 63 else payload]
    return _packed_varints(payload)


def _packed_varints(payload: bytes) -> list:
    """The int64 values of a packed varint field, decoded by numpy (each varint's 7-bit
    groups shifted into place and or-ed together; past 64 bits dropped, as protobuf)."""
    data = np.frombuffer(payload, dtype=np.uint8)
    ends = np.flatnonzero(data < 0x80)
    if not len(data):
        return []
    if not len(ends) or ends[-1] != len(data) - 1:
        raise DecodeError("truncated varint in a packed field")
    starts = np.concatenate([[0], ends[:-1] + 1])
    if (ends - starts).max() >= 10:
        raise DecodeError("a varint over 10 bytes in a packed field")
    position = np.arange(len(data)) - np.repeat(starts, ends - starts + 1)
    groups = (data & 0x7F).astype(np.uint64) << (7 * position).astype(np.uint64)
    return np.bitwise_or.reduceat(groups, starts).view(np.int64).tolist()


def _text(message, indent):
    """protobuf's text format of ``message``, line by line."""
    for number, name, kind, _ in message._FIELDS:
        value = message._values.get(name)
        if value is None or (kind == "message" and name not in message._set):
            continue
        if kind in ("message", "messages", "map"):
            items = ([value] if kind == "message" else list(value) if kind == "messages"
                     else [(k, value[k]) for k in value])
            for item in items:
                yield f"{indent}{name} {{\n"
                if kind == "map":
                    yield f'{indent}  key: "{_escape(item[0].encode())}"\n{indent}  value {{\n'
                    yield from _text(item[1], indent + "    ")
                    yield f"{indent}  }}\n"
                else:
                    yield from _text(item, indent + "  ")
                yield f"{indent}}}\n"
        else:
            for item in value:
                shown = (f'"{_escape(item)}"' if kind == "bytes" else str(item)
                         if kind == "int64" else _short_float(item))
                yield f"{indent}{name}: {shown}\n"


def _escape(data: bytes) -> str:
    special = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"',
               ord("'"): "\\'", ord("\\"): "\\\\"}
    return "".join(special.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}") for b in data)


def _short_float(value: float) -> str:
    if math.isinf(value) or math.isnan(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    for digits in range(6, 10):  # the shortest that reads back as the same float32
        text = f"{value:.{digits}g}"
        if np.float32(float(text)) == np.float32(value):
            return text
    return repr(value)


class BytesList(_Message):
    """``value``: a list of bytes."""

    _FIELDS = ((1, "value", "bytes", None),)


class FloatList(_Message):
    """``value``: a list of floats (kept as float32 values)."""

    _FIELDS = ((1, "value", "float", None),)


class Int64List(_Message):
    """``value``: a list of int64 values."""

    _FIELDS = ((1, "value", "int64", None),)


class Feature(_Message):
    """One of ``bytes_list``, ``float_list``, ``int64_list`` (oneof ``kind``)."""

    _FIELDS = ((1, "bytes_list", "message", BytesList), (2, "float_list", "message", FloatList),
               (3, "int64_list", "message", Int64List))
    _ONEOF = ("bytes_list", "float_list", "int64_list")


class Features(_Message):
    """``feature``: a map from names to :class:`Feature`."""

    _FIELDS = ((1, "feature", "map", Feature),)


class FeatureList(_Message):
    """``feature``: a list of :class:`Feature` (one per step of a sequence)."""

    _FIELDS = ((1, "feature", "messages", Feature),)


class FeatureLists(_Message):
    """``feature_list``: a map from names to :class:`FeatureList`."""

    _FIELDS = ((1, "feature_list", "map", FeatureList),)


class Example(_Message):
    """``features``: the :class:`Features` of one example (``tf.train.Example``)."""

    _FIELDS = ((1, "features", "message", Features),)


class SequenceExample(_Message):
    """``context`` (:class:`Features`) and ``feature_lists`` (:class:`FeatureLists`)."""

    _FIELDS = ((1, "context", "message", Features),
               (2, "feature_lists", "message", FeatureLists))
