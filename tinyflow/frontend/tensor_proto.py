"""TensorFlow's ``TensorProto`` bytes, as ``tf.io.serialize_tensor`` writes them and
``tf.io.parse_tensor`` reads them, by hand (protobuf's wire format: checkpoint_format's).

Written: ``dtype`` (1), ``tensor_shape`` (2: a ``dim`` (2) per dimension, its ``size`` (1)),
then the values: ``tensor_content`` (4, the little-endian bytes; left out when empty) for a
number or bool, a ``string_val`` (8) per element for strings: byte for byte what TF 2.21's
SerializeTensor writes.  Read: by ``tf.make_ndarray``'s reader (:mod:`.tensor_util`: the
content, or the typed value fields, fewer values than elements repeating the last, as TF's).
The bytes are untrusted: a malformed message is a :class:`~.checkpoint_format.FormatError`,
and the elements a shape claims are checked against the host's memory before anything is
allocated.
"""
from __future__ import annotations

import math

import numpy as np

from ..nnvm import host_memory
from ..nnvm.errors import ResourceExhaustedError
from . import tensor_util
from .checkpoint_format import DTYPE_CODES, DTYPES, FormatError, _field
from .example_proto import DecodeError

__all__ = ["parse", "serialize"]

_STRING = 7  # DataType DT_STRING


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
    an object array of bytes); FormatError, or TF's message as a ValueError, otherwise.  Read
    as ``tf.make_ndarray`` reads a proto (:mod:`.tensor_util`), after the checks TF's
    ParseTensor makes: the dtype, a known rank, the memory the shape claims."""
    try:
        proto = tensor_util.TensorProto.FromString(bytes(data))
    except DecodeError as err:
        raise FormatError(f"{what}: {err}") from None
    name = "string" if proto.dtype == _STRING else DTYPES.get(proto.dtype)
    if name is None:  # TF's text (its dtype DT_INVALID, or one TinyFlow has not)
        raise ValueError(f"Cannot parse tensor from proto: dtype code {proto.dtype}")
    if name != dtype:
        raise ValueError(f"Type mismatch between parsed tensor ({_tf_name(name)}) and dtype "
                         f"({_tf_name(dtype)})")
    if proto.tensor_shape.unknown_rank:
        raise FormatError(f"{what}: a shape of unknown rank")
    shape = [d.size for d in proto.tensor_shape.dim]
    if any(d < 0 for d in shape):
        raise FormatError(f"{what}: a negative dimension in shape {shape}")
    count = math.prod(shape)
    itemsize = 8 if name == "string" else np.dtype(name).itemsize
    limit, source = host_memory.host_available_bytes()
    if count * itemsize > limit:
        raise ResourceExhaustedError(f"{what}: a tensor of shape {shape} {name} needs "
                                     f"{count * itemsize} bytes, more than the {limit} "
                                     f"available ({source})")
    try:
        return tensor_util.make_ndarray(proto)
    except ValueError as err:  # content of the wrong size, more values than the shape holds
        raise FormatError(f"{what}: {err}") from None


def _tf_name(name: str) -> str:
    return {"float32": "float", "float64": "double", "float16": "half"}.get(name, name)
