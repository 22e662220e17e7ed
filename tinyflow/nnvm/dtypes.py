"""``tf.float32``, ``tf.int64``...: TensorFlow's DType objects, and :func:`as_dtype`.

Graph nodes store a dtype by its name (``"float32"``), so graphs serialise as plain JSON; a
:class:`DType` is what the TF-1 surface hands users.  It equals its name (``tf.float32 ==
"float32"``), so either spelling works wherever a dtype is taken.  Building graphs does not
import torch: :data:`TORCH_NAMES` maps names to torch's attribute names for the executor.
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "DType",
    "as_dtype",
    "bool",
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "string",
    "uint8",
]

_BUILTIN_BOOL = bool


class DType:
    """A tensor element type, as TensorFlow's ``tf.DType``."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    @property
    def as_numpy_dtype(self):
        """The numpy scalar type (``np.float32``); ``object`` for ``string``."""
        return object if self.name == "string" else np.dtype(self.name).type

    @property
    def is_floating(self) -> _BUILTIN_BOOL:
        return self.name.startswith("float")

    @property
    def is_integer(self) -> _BUILTIN_BOOL:
        return self.name.startswith(("int", "uint"))

    @property
    def is_bool(self) -> _BUILTIN_BOOL:
        return self.name == "bool"

    @property
    def size(self) -> int:
        """Bytes per element."""
        return np.dtype(self.name).itemsize if self.name != "string" else 0

    @property
    def base_dtype(self) -> DType:
        return self

    real_dtype = base_dtype  # TinyFlow has no complex types
    is_complex = is_quantized = property(lambda self: False)
    is_numpy_compatible = property(lambda self: True)
    is_unsigned = property(lambda self: self.name.startswith("uint"))
    as_datatype_enum = property(lambda self: _ENUMS[self.name], doc="TF's DataType number")

    @property
    def min(self):
        """The smallest value of the type (TF's TypeError for bool and string)."""
        return self._range("minimum")[0]

    @property
    def max(self):
        """The largest value of the type (TF's TypeError for bool and string)."""
        return self._range("maximum")[1]

    def _range(self, what: str) -> tuple:
        if self.name in ("bool", "string"):
            raise TypeError(f"Cannot find {what} value of {self}.")
        info = np.finfo(self.name) if self.is_floating else np.iinfo(self.name)
        return info.min, info.max

    def is_compatible_with(self, other) -> _BUILTIN_BOOL:
        return self == as_dtype(other)

    def __eq__(self, other) -> _BUILTIN_BOOL:
        try:
            return self.name == as_dtype(other).name
        except TypeError:
            return NotImplemented

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: '{self.name}'>"


float16, float32, float64 = DType("float16"), DType("float32"), DType("float64")
int8, int16, int32, int64 = DType("int8"), DType("int16"), DType("int32"), DType("int64")
uint8, bool, string = DType("uint8"), DType("bool"), DType("string")  # TF names bool so

_BY_NAME = {d.name: d for d in (float16, float32, float64, int8, int16, int32, int64, uint8,
                                bool, string)}
_ENUMS = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7,
          "int64": 9, "bool": 10, "float16": 19}  # TF's types.proto
# TensorFlow's other spellings of the same types
_ALIASES = {"float": float32, "half": float16, "double": float64, "int": int32, "long": int64,
            "uint8_t": uint8, "str": string, "bytes": string}
_PYTHON_TYPES = {float: float32, int: int32, _BUILTIN_BOOL: bool, str: string, bytes: string}

# dtype name -> torch attribute (``getattr(torch, TORCH_NAMES[name])``); no torch for strings
TORCH_NAMES = {name: name for name in _BY_NAME if name != "string"}


def as_dtype(value) -> DType:
    """The :class:`DType` for ``value``: a DType, a name (``"float32"``, TF's ``"float"``,
    ``"double"``...), a numpy dtype or scalar type, or a Python type (``float`` -> float32,
    ``int`` -> int32, as TensorFlow converts Python numbers).

    Raises
    ------
    TypeError
        Naming ``value`` when it is no dtype TinyFlow supports.
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        found = _BY_NAME.get(value) or _ALIASES.get(value)
    elif isinstance(value, type) and value in _PYTHON_TYPES:
        found = _PYTHON_TYPES[value]
    else:
        try:
            numpy_dtype = np.dtype(value)
        except TypeError:
            numpy_dtype = None
        found = None if numpy_dtype is None else (
            string if numpy_dtype.kind in "USO" else _BY_NAME.get(numpy_dtype.name))
    if found is None:
        raise TypeError(f"{value!r} is not a dtype TinyFlow supports; use one of "
                        f"{', '.join('tf.' + n for n in _BY_NAME)}")
    return found
