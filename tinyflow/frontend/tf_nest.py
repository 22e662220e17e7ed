"""``tf.nest``: TensorFlow 1.15's functions over nested structures, with its rules: lists,
tuples, namedtuples, other ``collections.abc.Sequence`` types and mappings (values in sorted
key order, a mapping packed back with its own key order) are structure; strings, arrays,
tensors, sets and everything else are leaves (``attrs`` classes are not supported)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from .unsupported import unsupported

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]


def is_nested(seq) -> bool:
    """True for a structure (a sequence that is not a string, or a mapping), False for a
    leaf."""
    return isinstance(seq, Mapping) or (isinstance(seq, Sequence)
                                        and not isinstance(seq, (str, bytes)))


def _children(structure) -> list:
    """A structure's items in nest's order (a mapping's values by sorted key)."""
    if isinstance(structure, Mapping):
        return [structure[key] for key in _sorted_keys(structure)]
    return list(structure)


def _sorted_keys(mapping) -> list:
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.") from None


def flatten(structure, expand_composites=False) -> list:
    """The leaves of ``structure`` in order (a leaf alone gives ``[leaf]``, None ``[None]``)."""
    if not is_nested(structure):
        return [structure]
    leaves, stack = [], [structure]
    while stack:  # iterative: deep structures do not reach the recursion limit
        item = stack.pop()
        if is_nested(item):
            stack.extend(reversed(_children(item)))
        else:
            leaves.append(item)
    return leaves


def _sequence_like(instance, items):
    """A structure of ``instance``'s type holding ``items`` (in nest's order)."""
    if isinstance(instance, Mapping):
        by_key = dict(zip(_sorted_keys(instance), items))
        return type(instance)((key, by_key[key]) for key in instance)
    if isinstance(instance, tuple) and hasattr(instance, "_fields"):  # a namedtuple
        return type(instance)(*items)
    return type(instance)(items)


def _pack(structure, leaves):
    if not is_nested(structure):
        return next(leaves)
    return _sequence_like(structure, [_pack(child, leaves) for child in _children(structure)])


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``structure`` with its leaves replaced, in order, by the items of ``flat_sequence``.

    Raises
    ------
    TypeError
        ``flat_sequence`` not a sequence.
    ValueError
        A leaf count that differs from ``len(flat_sequence)`` (TF's messages).
    """
    if not is_nested(flat_sequence):
        raise TypeError(f"Attempted to pack value:\n  {flat_sequence}\ninto a structure, but "
                        f"found incompatible type `{type(flat_sequence)}` instead.")
    flat_sequence = list(flat_sequence)
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError(f"The target structure is of type `{type(structure)}`\n  "
                             f"{structure}\nHowever the input is a sequence "
                             f"({type(flat_sequence)}) of length {len(flat_sequence)}.\n  "
                             f"{flat_sequence}\nnest cannot guarantee that it is safe to map "
                             f"one to the other.")
        return flat_sequence[0]
    count = len(flatten(structure))
    if count != len(flat_sequence):
        raise ValueError(f"Could not pack sequence. Structure had {count} atoms, but "
                         f"flat_sequence had {len(flat_sequence)} items.  Structure: "
                         f"{structure}, flat_sequence: {flat_sequence}.")
    return _pack(structure, iter(flat_sequence))


def _shown(value) -> str:
    return f"type={type(value).__name__} str={value}"


def _outline(value) -> str:
    """The structure with every leaf as ``.``, as TF's messages print it."""
    if not is_nested(value):
        return "."
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k!r}: {_outline(value[k])}" for k in value) + "}"
    inner = [_outline(v) for v in value]
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return f"{type(value).__name__}(" + ", ".join(
            f"{f}={v}" for f, v in zip(value._fields, inner)) + ")"
    if isinstance(value, tuple):
        return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"
    return "[" + ", ".join(inner) + "]"


def _difference(first, second, check_types):
    """The first place two structures differ, as (exception class, TF's words), or None."""
    pairs = [(first, second)]
    while pairs:
        a, b = pairs.pop()
        if is_nested(a) != is_nested(b):
            nested, leaf = (a, b) if is_nested(a) else (b, a)
            return ValueError, (f'Substructure "{_shown(nested)}" is a sequence, while '
                                f'substructure "{_shown(leaf)}" is not')
        if not is_nested(a):
            continue
        if check_types and type(a) is not type(b):
            return TypeError, (f"The two namedtuples don't have the same sequence type. First "
                               f"structure {_shown(a)} has type {type(a).__name__}, while "
                               f"second structure {_shown(b)} has type {type(b).__name__}")
        if isinstance(a, Mapping) and isinstance(b, Mapping) and set(a) != set(b):
            return ValueError, (f"The two dictionaries don't have the same set of keys. First "
                                f"structure has keys {_shown(list(a))}, while second structure "
                                f"has keys {_shown(list(b))}")
        if len(a) != len(b):
            return ValueError, (f"The two structures don't have the same number of elements. "
                                f"First structure: {_shown(a)}. Second structure: {_shown(b)}")
        pairs.extend(reversed(list(zip(_children(a), _children(b)))))
    return None


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False) -> None:
    """Raise unless ``nest1`` and ``nest2`` have one structure: ValueError when their nesting,
    lengths or mapping keys differ, TypeError when ``check_types`` and the sequence types
    differ (TF 1.15's messages)."""
    found = _difference(nest1, nest2, check_types)
    if found is not None:
        error, detail = found
        raise error(f"The two structures don't have the same nested structure.\n\n"
                    f"First structure: {_shown(nest1)}\n\nSecond structure: {_shown(nest2)}"
                    f"\n\nMore specifically: {detail}\nEntire first structure:\n"
                    f"{_outline(nest1)}\nEntire second structure:\n{_outline(nest2)}")


def map_structure(func, *structure, **kwargs):
    """``func`` applied to the leaves of the structures (one structure, checked alike with
    ``check_types``), packed as the first one."""
    check_types = kwargs.pop("check_types", True)
    kwargs.pop("expand_composites", None)
    if kwargs:
        raise ValueError(f"Only valid keyword arguments are `check_types` and "
                         f"`expand_composites`, not: `{', '.join(kwargs)}`")
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    leaves = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*items) for items in zip(*leaves)])


def __getattr__(name):
    raise unsupported("tf.nest.", "tinyflow.tf_nest", name, {"tf.nest.": __all__})
