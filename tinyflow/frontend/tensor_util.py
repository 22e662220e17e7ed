"""``tf.make_tensor_proto`` and ``tf.make_ndarray``: TensorFlow's ``TensorProto`` written and
read by hand in protobuf's wire format (no protobuf dependency), as TensorFlow 1.15's
``tensor_util`` fills it: a numeric array of more than one element of float16/32/64, int8/16/
32/64 or uint8 as ``tensor_content`` (its bytes), anything else (a scalar, a bool, a string, a
value broadcast to a larger ``shape``) as the typed repeated field, so ``SerializeToString``
gives TensorFlow's bytes.  ``make_ndarray`` fills a shape from fewer values with the last one,
as TensorFlow does.  Parsed bytes are untrusted: a malformed message is a ``DecodeError``, and
an array that would not fit in the host's memory is refused before it is allocated.
"""
from __future__ import annotations

import math

import numpy as np

from ..nnvm import host_memory
from ..nnvm.symbol import Symbol
from .checkpoint_format import DTYPE_CODES, DTYPES, MAX_RANK, FormatError, _fields, _varint
from .dtypes import as_dtype
from .example_proto import DecodeError, _packed_varints

__all__ = ["TensorProto", "TensorShapeProto", "make_ndarray", "make_tensor_proto"]

# (field number, kind) of each typed value field; packed but for strings
_VALUE_FIELDS = {"float_val": (5, "<f4"), "double_val": (6, "<f8"), "int_val": (7, "varint"),
                 "string_val": (8, "bytes"), "int64_val": (10, "varint"),
                 "bool_val": (11, "varint"), "half_val": (13, "varint")}
_FIELD_OF = {"float32": "float_val", "float64": "double_val", "int32": "int_val",
             "uint8": "int_val", "int16": "int_val", "int8": "int_val", "uint16": "int_val",
             "int64": "int64_val", "bool": "bool_val", "float16": "half_val",
             "string": "string_val"}
_CONTENT = ("float32", "float64", "int32", "uint8", "int16", "int8", "int64", "float16")
_NAMES = {**DTYPES, 7: "string"}


class TensorShapeProto:
    """TensorFlow's ``TensorShapeProto``: ``dim`` (each with ``size`` and ``name``) and
    ``unknown_rank``."""

    class Dim:
        def __init__(self, size=0, name=""):
            self.size, self.name = int(size), str(name)

        def __repr__(self):
            return f"size: {self.size}" + (f" name: {self.name!r}" if self.name else "")

    def __init__(self, dims=(), unknown_rank=False):
        self.dim = [self.Dim(d) for d in dims]
        self.unknown_rank = bool(unknown_rank)

    def SerializeToString(self) -> bytes:
        dims = b"".join(_length_field(2, _int_field(1, d.size) + _bytes_field(
            2, d.name.encode())) for d in self.dim)
        return dims + _int_field(3, int(self.unknown_rank))


class TensorProto:
    """TensorFlow's ``TensorProto``: ``dtype`` (the DataType number), ``tensor_shape``,
    ``tensor_content`` and the typed value lists (``float_val``, ``int_val``...)."""

    def __init__(self, dtype=0, tensor_shape=None, tensor_content=b""):
        self.dtype, self.version_number = int(dtype), 0
        self.tensor_shape = tensor_shape or TensorShapeProto()
        self.tensor_content = bytes(tensor_content)
        for name in _VALUE_FIELDS:
            setattr(self, name, [])

    def SerializeToString(self) -> bytes:
        """The message's bytes, TensorFlow's (fields in number order, lists packed)."""
        out = _int_field(1, self.dtype) + _length_field(2, self.tensor_shape.SerializeToString())
        out += _int_field(3, self.version_number) + _bytes_field(4, self.tensor_content)
        for name, (number, kind) in _VALUE_FIELDS.items():
            values = getattr(self, name)
            if kind == "bytes":
                out += b"".join(_length_field(number, bytes(v)) for v in values)
            elif len(values):
                packed = (np.asarray(values, kind).tobytes() if kind != "varint" else
                          b"".join(_varint(int(v)) for v in values))
                out += _length_field(number, packed)
        return out

    @classmethod
    def FromString(cls, data: bytes) -> TensorProto:
        proto = cls()
        proto.ParseFromString(data)
        return proto

    def ParseFromString(self, data: bytes) -> None:
        """Read TensorFlow's bytes (untrusted: DecodeError naming what is malformed)."""
        try:
            fields = _fields(bytes(data), "TensorProto")
            shape = _fields(_last(fields, 2, b""), "TensorProto.tensor_shape")
            dims = [_fields(d, "TensorShapeProto.dim") for d in shape.get(2, [])]
        except FormatError as err:
            raise DecodeError(str(err)) from None
        if len(dims) > MAX_RANK:
            raise DecodeError(f"TensorProto: {len(dims)} dims, over {MAX_RANK}")
        self.__init__(_last(fields, 1, 0), TensorShapeProto(), _last(fields, 4, b""))
        self.tensor_shape.dim = [TensorShapeProto.Dim(_signed(_last(d, 1, 0)), _last(
            d, 2, b"").decode("utf-8", "replace")) for d in dims]
        self.tensor_shape.unknown_rank = bool(_last(shape, 3, 0))
        for name, (number, kind) in _VALUE_FIELDS.items():
            setattr(self, name, [v for item in fields.get(number, [])
                                 for v in _decoded(item, kind)])

    def __repr__(self):
        return (f"TensorProto(dtype={self.dtype}, shape={[d.size for d in self.tensor_shape.dim]}"
                f", {len(self.tensor_content)} content bytes)")


def _int_field(number, value) -> bytes:
    return _varint(number << 3) + _varint(value) if value else b""


def _bytes_field(number, value: bytes) -> bytes:
    return _length_field(number, value) if value else b""


def _length_field(number, value: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def _last(fields, number, default):
    value = fields.get(number, [default])[-1]
    if type(value) is not type(default):
        raise DecodeError(f"TensorProto: field {number} has the wrong wire type")
    return value


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _decoded(item, kind) -> list:
    """One occurrence of a value field: packed (bytes) or one unpacked value (an int)."""
    if kind == "bytes":
        if not isinstance(item, bytes):
            raise DecodeError("TensorProto: string_val must be length-delimited")
        return [item]
    if isinstance(item, int):  # unpacked: a varint, or a fixed32 / fixed64's bits
        if kind == "varint":
            return [_signed(item)]
        size = int(kind[-1])
        if item >> (8 * size):
            raise DecodeError(f"TensorProto: a {8 * size}-bit value field holds more bits")
        return np.frombuffer(item.to_bytes(size, "little"), kind).tolist()
    if kind == "varint":
        return _packed_varints(item)
    if len(item) % int(kind[-1]):
        raise DecodeError(f"TensorProto: a packed field of {len(item)} bytes is not a whole "
                          f"number of {kind[-1]}-byte values")
    return np.frombuffer(item, kind).tolist()


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False,
                      allow_broadcast=False) -> TensorProto:
    """``values`` (a number, list, numpy array or bytes / str) as TensorFlow 1.15's
    ``tf.make_tensor_proto`` makes it.

    Parameters
    ----------
    values : array-like
        Not a tensor of a graph (TypeError, as TensorFlow's).
    dtype : DType, optional
        The proto's dtype; by default the values' (Python floats float32, ints int32, as
        ``tf.constant``).
    shape : list of int, optional
        The tensor's shape; fewer values than it holds are broadcast by their last one when
        read (:func:`make_ndarray`); more are a ValueError.
    verify_shape : bool
        The values' shape must be ``shape`` (TypeError otherwise).
    allow_broadcast : bool
        The values may be broadcast to ``shape`` by numpy's rules.
    """
    if isinstance(values, Symbol):
        raise TypeError("Expected any non-tensor type, but got a tensor instead.")
    if values is None:
        raise ValueError("None values not supported.")
    array, name = _as_array(values, dtype)
    dims = list(array.shape) if shape is None else [int(d) for d in shape]
    size = math.prod(dims)
    if shape is not None and allow_broadcast:
        array = np.broadcast_to(array, dims) if array.shape != tuple(dims) else array
    elif shape is not None:
        if verify_shape and array.shape != tuple(dims):
            raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, but got {array.shape}.")
        if array.size > size:
            raise ValueError(f"Too many elements provided. Takes at most {size}, but got "
                             f"{array.size}.")
    proto = TensorProto(_code(name), TensorShapeProto(dims))
    if array.size == size and name in _CONTENT and size > 1:
        proto.tensor_content = np.ascontiguousarray(array).astype(array.dtype.newbyteorder(
            "<")).tobytes()
        return proto
    flat = array.reshape(-1)
    if name == "float16":
        flat = flat.view(np.uint16)
    setattr(proto, _FIELD_OF[name], [bytes(v) for v in flat] if name == "string" else
            flat.tolist())
    return proto


def _as_array(values, dtype) -> tuple:
    """``(numpy array, dtype name)``: strings as an object array of bytes."""
    wanted = None if dtype is None else as_dtype(dtype).name
    if wanted == "string" or (wanted is None and _holds_strings(values)):
        strings = np.asarray(values, dtype=object)
        return np.vectorize(lambda v: v.encode() if isinstance(v, str) else bytes(v),
                            otypes=[object])(strings) if strings.size else strings, "string"
    array = np.asarray(values)
    if array.dtype == object:
        raise ValueError(f"make_tensor_proto: cannot make a tensor of {values!r}")
    if wanted is None:  # Python numbers: float32, int32 unless one needs int64 (TF's)
        fits = array.dtype != np.int64 or not array.size or (
            array.min() >= -2 ** 31 and array.max() < 2 ** 31)
        default = {np.dtype(np.float64): "float32", np.dtype(np.int64): "int32" if fits
                   else "int64"}
        wanted = (default.get(array.dtype, array.dtype.name) if not isinstance(
            values, np.ndarray | np.generic) else array.dtype.name)
    if wanted not in DTYPE_CODES:
        raise TypeError(f"make_tensor_proto: dtype {wanted} is not supported by TinyFlow")
    converted = array.astype(wanted)
    if array.dtype.kind == "f" and np.dtype(wanted).kind in "iub" and not np.array_equal(
            converted, array):
        bad = array[converted != array].reshape(-1)[0].item()
        raise TypeError(f"Expected {wanted}, but got {bad!r} of type '{type(bad).__name__}'.")
    return converted, wanted


def _holds_strings(values) -> bool:
    if isinstance(values, (str, bytes)):
        return True
    if isinstance(values, np.ndarray):
        return values.dtype.kind in "SUO"
    return isinstance(values, (list, tuple)) and any(_holds_strings(v) for v in values)


def _code(name: str) -> int:
    return 7 if name == "string" else DTYPE_CODES[name]


def make_ndarray(tensor: TensorProto) -> np.ndarray:
    """The numpy array a TensorProto holds, as TensorFlow 1.15's ``tf.make_ndarray``: its
    ``tensor_content``, else its typed values, the last repeated to fill the shape.  An
    unknown dtype is a TypeError; a shape or content that cannot be (negative dims, content
    of the wrong size, more than the host's free memory) a ValueError naming it."""
    name = _NAMES.get(tensor.dtype)
    if name is None:
        raise TypeError(f"Unsupported tensor type: {tensor.dtype}")
    shape = [d.size for d in tensor.tensor_shape.dim]
    if any(d < 0 for d in shape) or len(shape) > MAX_RANK:
        raise ValueError(f"make_ndarray: the TensorProto's shape {shape} is not a shape")
    count = math.prod(shape)
    itemsize = 8 if name == "string" else np.dtype(name).itemsize
    available, source = host_memory.host_available_bytes()
    if count * itemsize > available:
        raise ValueError(f"make_ndarray: a tensor of shape {shape} ({count * itemsize} bytes) "
                         f"does not fit in the host's memory ({available} bytes free per "
                         f"{source})")
    if tensor.tensor_content:
        if name == "string" or len(tensor.tensor_content) != count * itemsize:
            raise ValueError(f"make_ndarray: tensor_content holds {len(tensor.tensor_content)} "
                             f"bytes for {count} {name} values of shape {shape}")
        content = np.frombuffer(tensor.tensor_content, np.dtype(name).newbyteorder("<"))
        return content.astype(name).reshape(shape)
    values = getattr(tensor, _FIELD_OF[name])
    if name == "string":
        array = np.empty(len(values), dtype=object)
        array[:] = [bytes(v) for v in values]
    elif name == "float16":
        array = np.asarray(values, np.int64).astype(np.uint16).view(np.float16)
    else:
        array = np.asarray(values).astype(name)
    if array.size == 0:
        return np.full(shape, "", object) if name == "string" else np.zeros(shape, name)  # TF's ""
    if array.size > count:
        raise ValueError(f"make_ndarray: {array.size} values for a shape of {count} elements")
    return np.pad(array, (0, count - array.size), "edge").reshape(shape)
