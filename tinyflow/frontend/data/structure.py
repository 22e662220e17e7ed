"""Nested elements as tf.data sees them: tuples (namedtuples too) and dicts are structure,
anything else one component (a list is a tensor, as in TensorFlow 1.15's tf.data).  A dict's
components go in sorted key order, as ``tf.nest`` flattens them; a dict packed again keeps its
keys in the order they had (TF 1.15's ``nest._sequence_like``).

A dataset's element is described by a structure of :class:`Spec` (dtype and static shape per
component); the pipeline passes elements as flat tuples of numpy arrays in flattening order.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...nnvm.dtypes import DType, as_dtype
from ...nnvm.tensor_shape import TensorShape

__all__ = ["Spec", "compatible", "flatten", "map_structure", "pack", "shape_of", "spec_text"]


@dataclass(frozen=True)
class Spec:
    """One component of an element: its dtype (a DType) and static shape (a TensorShape)."""
    dtype: DType
    shape: TensorShape

    def __str__(self):
        return f"{self.dtype.name}{self.shape}"


def _is_structure(value) -> bool:
    return isinstance(value, (tuple, dict))


def flatten(structure) -> list:
    """The components of ``structure``, depth first (dict values by sorted key)."""
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, tuple):
        return [leaf for part in structure for leaf in flatten(part)]
    return [structure]


def pack(template, flat):
    """``flat`` (a sequence) put back into ``template``'s structure."""
    leaves = iter(flat)

    def build(part):
        if isinstance(part, dict):  # filled in sorted key order, keys as the template has them
            built = {key: build(part[key]) for key in sorted(part)}
            return type(part)((key, built[key]) for key in part)
        if isinstance(part, tuple):
            values = [build(p) for p in part]
            return type(part)(*values) if hasattr(part, "_fields") else type(part)(values)
        return next(leaves)
    return build(template)


def map_structure(func, structure):
    """``structure`` with ``func`` applied to each component."""
    return pack(structure, [func(leaf) for leaf in flatten(structure)])


def same_structure(a, b) -> bool:
    """Do ``a`` and ``b`` nest the same way (same kinds, lengths and dict keys)?"""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and sorted(a) == sorted(b) and all(
            same_structure(a[k], b[k]) for k in a)
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and all(
            same_structure(x, y) for x, y in zip(a, b))
    return True


def compatible(a, b) -> bool:
    """Could an element of spec structure ``a`` be one of ``b`` (same structure and dtypes,
    compatible shapes)?"""
    return same_structure(a, b) and all(
        x.dtype == y.dtype and x.shape.is_compatible_with(y.shape)
        for x, y in zip(flatten(a), flatten(b)))


def shape_of(shape) -> TensorShape:
    """A TensorShape from a TensorShape, a list or tuple of ints / None, or None (unknown)."""
    if isinstance(shape, TensorShape):
        return shape
    if shape is None:
        return TensorShape(None)
    if isinstance(shape, (int, np.integer)):
        return TensorShape([int(shape)])
    return TensorShape([None if d is None or (not hasattr(d, "value") and int(d) < 0)
                        else d for d in shape])


def spec_text(specs) -> str:
    """How errors show an element's structure of specs."""
    return str(map_structure(str, specs))


def as_spec_structure(types, shapes):
    """Spec structure from ``output_types`` and ``output_shapes`` (None: every shape unknown),
    for ``from_generator`` and ``Iterator.from_structure``."""
    dtypes = map_structure(as_dtype, types)
    if shapes is None:
        return map_structure(lambda d: Spec(d, TensorShape(None)), dtypes)
    flat_types = flatten(dtypes)
    flat_shapes = _flatten_shapes(shapes, dtypes)
    if len(flat_shapes) != len(flat_types):
        raise ValueError(f"output_shapes {shapes!r} do not match the structure of "
                         f"output_types {types!r}")
    return pack(dtypes, [Spec(d, shape_of(s)) for d, s in zip(flat_types, flat_shapes)])


def _flatten_shapes(shapes, template) -> list:
    """The shapes of ``shapes`` per component of ``template``: a list of ints there is one
    shape, not structure."""
    if isinstance(template, dict):
        if not isinstance(shapes, dict) or sorted(shapes) != sorted(template):
            raise ValueError(f"output_shapes {shapes!r} do not have the keys of output_types")
        return [s for k in sorted(template) for s in _flatten_shapes(shapes[k], template[k])]
    if isinstance(template, tuple):
        if not isinstance(shapes, (tuple, list)) or len(shapes) != len(template):
            raise ValueError(f"output_shapes {shapes!r} do not match output_types' "
                             f"{len(template)} components")
        return [s for p, t in zip(shapes, template) for s in _flatten_shapes(p, t)]
    return [shapes]
