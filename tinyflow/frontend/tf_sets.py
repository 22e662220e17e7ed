"""``tf.sets``: TensorFlow 1.15's set operations along the last dimension (``set_size``,
``set_intersection``, ``set_union``, ``set_difference``, and their short names ``size``,
``intersection``, ``union``, ``difference``), on dense tensors and SparseTensors of integers,
giving TF's SparseTensor: per leading coordinate the result's values sorted, the dense shape's
last dim the longest result.  A sparse ``a`` with a dense ``b`` is taken as TF takes it (the
operands swapped, a difference reversed).  Strings, which TF's sets also take, are not: a
TinyFlow executor holds no string tensors.  No gradient, as TensorFlow's.  Any other
``tf.sets.X`` is an AttributeError saying TinyFlow does not support it."""
from __future__ import annotations

from ..nnvm.symbol import Symbol, create_op
from .api import _tensor
from .sparse_ops import SparseTensor, SparseTensorValue, _declared
from .unsupported import unsupported

__all__ = ["difference", "intersection", "set_difference", "set_intersection", "set_size",
           "set_union", "size", "union"]

_VALID = ("int8", "int16", "int32", "int64", "uint8")  # TF's, less uint16 and string
_SHOWN = "int8, int16, int32, int64, uint8, uint16, string"


def _operand(value):
    if isinstance(value, SparseTensorValue):
        return SparseTensor.from_value(value)
    return value if isinstance(value, SparseTensor) else _tensor(value)


def _parts(value) -> list:
    return [value.indices, value.values, value.dense_shape] if isinstance(
        value, SparseTensor) else [value]


def set_size(a, validate_indices=True) -> Symbol:
    """How many distinct values each leading coordinate of the SparseTensor ``a`` holds (int32,
    ``a``'s dense shape less its last dim), as TensorFlow 1.15's ``tf.sets.set_size``."""
    a = _operand(a)
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    if a.dtype.name not in _VALID:
        raise TypeError(f"Invalid dtype `{a.dtype}` not in supported dtypes: `{_SHOWN}`.")
    return _declared(create_op("set_size", *_parts(a), name="SetSize"), None)  # TF's: unknown


def _set_operation(a, b, operation: str, validate_indices=True) -> SparseTensor:
    a, b = _operand(a), _operand(b)
    if a.dtype.name not in _VALID:
        raise TypeError(f"'a' has invalid dtype `{a.dtype}` not in supported dtypes: "
                        f"`{_SHOWN}`.")
    if b.dtype != a.dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):  # TF flips them
        a, b = b, a
        operation = {"a-b": "b-a", "b-a": "a-b"}.get(operation, operation)
    if not isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        _check_dense(a.get_shape(), b.get_shape())
    out = create_op("set_operation", *_parts(a), *_parts(b), operation=operation,
                    a_sparse=isinstance(a, SparseTensor), b_sparse=isinstance(b, SparseTensor),
                    name="SetOperation")
    rank = (a.dense_shape.get_shape()[0].value if isinstance(a, SparseTensor)
            else a.get_shape().ndims)
    indices, values, shape = (Symbol([entry]) for entry in out.outputs)
    return SparseTensor(_declared(indices, [None, rank]), _declared(values, [None]),
                        _declared(shape, [rank]))


def _check_dense(a, b) -> None:
    """TF's shape function of DenseToDenseSetOperation: ranks at least 2 and equal, the
    leading dims compatible (its ValueError's words)."""
    for shape in (a, b):
        if shape.ndims is not None and shape.ndims < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {shape.ndims}")
    if a.ndims is None or b.ndims is None:
        return
    if a.ndims != b.ndims:
        raise ValueError(f"Shape must be rank {a.ndims} but is rank {b.ndims}")
    for i, (x, y) in enumerate(zip(a.as_list()[:-1], b.as_list()[:-1])):
        if None not in (x, y) and x != y:
            raise ValueError(f"Dimension {i} in both shapes must be equal, but are {x} and "
                             f"{y}. Shapes are {a.as_list()[:-1]} and {b.as_list()[:-1]}.")


def set_intersection(a, b, validate_indices=True) -> SparseTensor:
    """The values in both ``a`` and ``b``, per leading coordinate (TF 1.15's)."""
    return _set_operation(a, b, "intersection", validate_indices)


def set_union(a, b, validate_indices=True) -> SparseTensor:
    """The values in ``a`` or ``b``, per leading coordinate (TF 1.15's)."""
    return _set_operation(a, b, "union", validate_indices)


def set_difference(a, b, aminusb=True, validate_indices=True) -> SparseTensor:
    """The values in ``a`` not in ``b`` (``aminusb=False``: in ``b`` not in ``a``), per leading
    coordinate (TF 1.15's)."""
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


size, intersection, union, difference = set_size, set_intersection, set_union, set_difference


def __getattr__(name):
    raise unsupported("tf.sets.", "tinyflow.sets", name, {"tf.sets.": __all__})
