"""TensorFlow's ``TensorProto`` bytes, as ``tf.io.serialize_tensor`` writes them and
``tf.io.parse_tensor`` reads them, by hand (protobuf's wire format: checkpoint_format's).

Written: ``dtype`` (1), ``tensor_shape`` (2: a ``dim`` (2) per dimension, its ``size`` (1)),
then the values: ``tensor_content`` (4, the little-endian bytes; left out when empty) for a
number or bool, a ``string_val`` (8) per element for strings: byte for byte what TF 2.21's
SerializeTensor writes.  Read: those, and the typed value fields TF's ``Tensor::FromProto``
reads (``float_val``, ``double_val``, ``int_val``, ``int64_val``, ``bool_val``, ``half_val``;
fewer values than elements repeat the last, as TF's).  The bytes are untrusted: a malformed
message is a :class:`~.checkpoint_format.FormatError`, and the elements a shape claims are
checked against the host's memory before anything is allocated.
"""
from __future__ import annotations

import math

import numpy as np

from ..nnvm import host_memory
from ..nnvm.errors import ResourceExhaustedError
from .checkpoint_format import (
    DTYPE_CODES,
    DTYPES,
    MAX_RANK,
    FormatError,
    _field,
    _fields,
    _int,
    _message,
    _read_varint,
)

__all__ = ["parse", "serialize"]

_STRING = 7  # DataType DT_STRING
# each dtype's typed value field: (field number, a fixed-size value's numpy dtype, else None)
_VALUE_FIELDS = {"float32": (5, "<f4"), "float64": (6, "<f8"), "int32": (7, None),
                 "int16": (7, None), "int8": (7, None), "uint8": (7, None), "uint16": (7, None),
                 "int64": (10, None), "bool": (11, None), "float16": (13, None)}


def serialize(array: np.ndarray) -> bytes:
    """The ``TensorProto`` of ``array`` (numbers, bools, or an object array of bytes)."""
    array = np.asarray(array)
    if array.dtype.kind in "SU":  # a string constant's value: bytes or str
        array = np.array([v.encode() if isinstance(v, str) else bytes(v)
                          for v in array.reshape(-1).tolist()], dtype=object).reshape(array.shape)
    dims = b"".join(_field(2, _field(1, int(d)) or b"") for d in array.shape)
    if array.dtype == object:
        values = b"".join(_field(8, bytes(v)) for v in array.reshape(-1).tolist())
        return _field(1, _STRING) + _field(2, dims) + values
    if array.dtype.name not in DTYPE_CODES:
        raise TypeError(f"serialize_tensor: no TensorProto dtype for {array.dtype.name}")
    content = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return (_field(1, DTYPE_CODES[array.dtype.name]) + _field(2, dims)
            + (_field(4, content) if content else b""))


def parse(data: bytes, dtype: str, what: str) -> np.ndarray:
    """The tensor of the ``TensorProto`` ``data``, which must hold ``dtype`` (``"string"``:
    an object array of bytes); FormatError, or TF's message as a ValueError, otherwise."""
    fields = _fields(bytes(data), what)
    code = _int(fields, 1, 32)
    name = "string" if code == _STRING else DTYPES.get(code)
    if name is None:  # TF's text (its dtype DT_INVALID, or one TinyFlow has not)
        raise ValueError(f"Cannot parse tensor from proto: dtype code {code}")
    if name != dtype:
        raise ValueError(f"Type mismatch between parsed tensor ({_tf_name(name)}) and dtype "
                         f"({_tf_name(dtype)})")
    shape = _shape(_message(fields, 2, what), what)
    count = math.prod(shape)
    itemsize = 8 if name == "string" else np.dtype(name).itemsize
    limit, source = host_memory.host_available_bytes()
    if count * itemsize > limit:
        raise ResourceExhaustedError(f"{what}: a tensor of shape {list(shape)} {name} needs "
                                     f"{count * itemsize} bytes, more than the {limit} "
                                     f"available ({source})")
    if name == "string":
        values = [bytes(v) for v in fields.get(8, [])]
        if len(values) != count:
            raise FormatError(f"{what}: {len(values)} strings for shape {list(shape)}")
        array = np.empty(count, dtype=object)
        array[:] = values
        return array.reshape(shape)
    return _numbers(fields, name, shape, count, what)


def _tf_name(name: str) -> str:
    return {"float32": "float", "float64": "double", "float16": "half"}.get(name, name)


def _shape(data: bytes, what: str) -> tuple:
    fields = _fields(data, what)
    if _int(fields, 3, 32):
        raise FormatError(f"{what}: a shape of unknown rank")
    dims = fields.get(2, [])
    if len(dims) > MAX_RANK:
        raise FormatError(f"{what}: {len(dims)} dimensions, more than {MAX_RANK}")
    shape = tuple(_int(_fields(_message({2: [d]}, 2, what), what), 1) for d in dims)
    if any(d < 0 for d in shape):
        raise FormatError(f"{what}: a negative dimension in shape {list(shape)}")
    return shape


def _numbers(fields: dict, name: str, shape: tuple, count: int, what: str) -> np.ndarray:
    """``tensor_content``'s bytes, else the typed values (the last repeated to fill)."""
    dtype = np.dtype(name).newbyteorder("<")
    if 4 in fields:
        content = fields[4][-1]
        if not isinstance(content, bytes) or len(content) != count * dtype.itemsize:
            raise FormatError(f"{what}: tensor_content of {len(content)} bytes for a {name} "
                              f"tensor of shape {list(shape)}")
        return np.frombuffer(content, dtype=dtype).astype(name).reshape(shape)
    number, packed = _VALUE_FIELDS[name]
    values = _typed_values(fields.get(number, []), packed, what)
    if len(values) > count:
        raise FormatError(f"{what}: {len(values)} values for shape {list(shape)}")
    if name == "float16":  # half_val holds each value's bits
        values = np.array(values, dtype=np.uint16).view(np.float16).tolist()
    array = np.zeros(count, dtype=name)
    if values:
        array[:len(values)] = np.array(values).astype(name)
        array[len(values):] = array[len(values) - 1]
    return array.reshape(shape)


def _typed_values(entries: list, packed: str | None, what: str) -> list:
    """A repeated field's values: varints (signed as int64), fixed-size ones, packed or not."""
    values = []
    for entry in entries:
        if isinstance(entry, int):  # one unpacked value
            values.append(_signed(entry) if packed is None else np.frombuffer(
                entry.to_bytes(np.dtype(packed).itemsize, "little"), dtype=packed)[0])
        elif packed is not None:
            if len(entry) % np.dtype(packed).itemsize:
                raise FormatError(f"{what}: packed values of {len(entry)} bytes")
            values += np.frombuffer(entry, dtype=packed).tolist()
        else:
            position = 0
            while position < len(entry):
                value, position = _read_varint(entry, position, what)
                values.append(_signed(value))
    return values


def _signed(value: int) -> int:
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >> 63 else value
