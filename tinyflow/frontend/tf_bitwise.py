"""``tf.bitwise`` (``bitwise_and``, ``bitwise_or``, ``bitwise_xor``, ``invert``,
``left_shift``, ``right_shift``) and ``tf.bitcast``, TensorFlow 1.15's: integer tensors' bits
(int8, int16, int32, int64, uint8: TinyFlow's integer dtypes), numpy broadcasting; a shift
by a count below 0 or of the dtype's width or more is by the count clamped to [0, bits - 1],
as TF's kernel does.  None has a gradient, as TensorFlow's.  Any other ``tf.bitwise.X`` is an
AttributeError saying TinyFlow does not support it."""
from __future__ import annotations

import numpy as np

from ..nnvm.symbol import Symbol, create_op
from .api import _operands, _tensor
from .dtypes import as_dtype
from .unsupported import unsupported

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]

_INTEGERS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_BITCAST = ("bfloat16", "float16", "float32", "float64", "int64", "int32", "uint8", "uint16",
            "uint32", "uint64", "int8", "int16", "complex64", "complex128", "qint8", "quint8",
            "qint16", "quint16", "qint32")  # TF's message lists these


def _allowed(tensor: Symbol, allowed: tuple, parameter: str) -> Symbol:
    if tensor.dtype.name not in allowed or tensor.dtype.name == "bool":
        raise TypeError(f"Value passed to parameter '{parameter}' has DataType "
                        f"{tensor.dtype.name} not in list of allowed values: "
                        f"{', '.join(allowed)}")
    return tensor


def _binary(op: str, kind: str):
    def function(x, y, name=None) -> Symbol:
        x, y = _operands(x, y)
        _allowed(x, _INTEGERS, "x")
        if y.dtype != x.dtype:
            raise TypeError(f"Input 'y' of '{kind}' Op has type {y.dtype.name} that does not "
                            f"match type {x.dtype.name} of argument 'x'.")
        return create_op(op, x, y, name=name or kind)
    function.__name__ = op
    function.__doc__ = f"TensorFlow's ``tf.bitwise.{op}`` of integer tensors x and y."
    return function


bitwise_and = _binary("bitwise_and", "BitwiseAnd")
bitwise_or = _binary("bitwise_or", "BitwiseOr")
bitwise_xor = _binary("bitwise_xor", "BitwiseXor")
left_shift = _binary("left_shift", "LeftShift")
right_shift = _binary("right_shift", "RightShift")


def invert(x, name=None) -> Symbol:
    """``~x``: the bits of the integer tensor ``x`` flipped (TensorFlow's ``Invert``)."""
    return create_op("invert", _allowed(_tensor(x), _INTEGERS, "x"), name=name or "Invert")


def bitcast(input, type, name=None) -> Symbol:
    """``input``'s bytes read as dtype ``type``, as TensorFlow 1.15's ``tf.bitcast``: the same
    shape for dtypes of one width; ``[..., ratio]`` more from a wider dtype; from a narrower
    one the last dim, which must be the ratio, goes (a ShapeError, a ValueError, naming the
    shapes else: as the graph is built, or when a session binds it for a dim known then)."""
    x = _allowed(_tensor(input), _BITCAST, "input")
    target = as_dtype(type)
    sizes = (np.dtype(x.dtype.name).itemsize, np.dtype(target.name).itemsize)
    return create_op("bitcast", x, dtype=target.name, in_size=sizes[0], out_size=sizes[1],
                     in_enum=x.dtype.as_datatype_enum, out_enum=target.as_datatype_enum,
                     name=name or "Bitcast")


def __getattr__(name):
    raise unsupported("tf.bitwise.", "tinyflow.bitwise", name, {"tf.bitwise.": __all__})
