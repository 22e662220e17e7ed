"""Nested structures of tensors as TensorFlow's ``nest`` walks them: lists, tuples,
namedtuples and dicts (values by sorted key), for tf.cond's branches and tf.while_loop's loop
variables."""
from __future__ import annotations

from ..nnvm.symbol import Symbol

__all__ = ["describe_structure", "flatten", "pack", "structure_of"]


def flatten(value) -> list:
    """The leaves of a structure of lists, tuples and dicts (dict values by sorted key, as
    TensorFlow's ``nest``)."""
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in flatten(value[key])]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in flatten(item)]
    return [value]


def pack(structure, leaves):
    """``structure`` with its leaves taken in order from the iterator ``leaves``."""
    if isinstance(structure, dict):
        packed = {k: pack(structure[k], leaves) for k in sorted(structure)}
        return type(structure)((k, packed[k]) for k in structure)
    if isinstance(structure, (list, tuple)):
        items = [pack(v, leaves) for v in structure]
        if hasattr(structure, "_fields"):  # a namedtuple
            return type(structure)(*items)
        return type(structure)(items)
    return next(leaves)


def structure_of(value):
    """The structure with every leaf as ``.``: what two branches must share."""
    if isinstance(value, dict):
        return type(value), tuple((k, structure_of(value[k])) for k in sorted(value))
    if isinstance(value, (list, tuple)):
        return type(value), tuple(structure_of(v) for v in value)
    return "."


def describe_structure(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {describe_structure(value[k])}" for k in sorted(value)) + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(describe_structure(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' * (len(value) == 1)})"
    return "tensor" if isinstance(value, Symbol) else type(value).__name__
