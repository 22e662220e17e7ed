"""``TensorShape`` and ``Dimension``: a tensor's static shape as TensorFlow 1 shows it.

Shapes in the graph layer are tuples of ints, or None where inference cannot tell.  TF-1
programs read static shapes partly known (``[None, 10]`` for a batch fed at run time), so
:func:`tinyflow.nnvm.symbol.static_shape` infers twice with two different stand-in sizes for every
unknown placeholder dimension: a dimension that comes out the same both times is known, one that
differs depends on a fed size and is ``None``.
"""
from __future__ import annotations

__all__ = ["Dimension", "TensorShape"]

# Stand-ins for unknown placeholder dimensions: large primes, so a result derived from one
# (a product, a quotient) differs between the two runs.
_STAND_INS = (1_000_003, 1_000_033)


class Dimension:
    """One dimension of a :class:`TensorShape`: ``value`` is an int or None (unknown)."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = None if value is None else int(value)

    def __int__(self) -> int:
        if self.value is None:
            raise ValueError("the dimension is unknown (None)")
        return self.value

    __index__ = __int__

    def __eq__(self, other):
        other = other.value if isinstance(other, Dimension) else other
        return None if self.value is None or other is None else self.value == other

    def __hash__(self):
        return hash(self.value)

    def __repr__(self) -> str:
        return f"Dimension({self.value})"

    def __str__(self) -> str:
        return "?" if self.value is None else str(self.value)


class TensorShape:
    """A static shape: ``dims`` is a list of :class:`Dimension`, or None when even the rank is
    unknown."""

    def __init__(self, dims) -> None:
        if isinstance(dims, TensorShape):  # a copy; an unknown rank stays unknown
            dims = dims.dims
        self.dims = None if dims is None else [d if isinstance(d, Dimension) else Dimension(d)
                                               for d in dims]

    @property
    def ndims(self) -> int | None:
        return None if self.dims is None else len(self.dims)

    def as_list(self) -> list:
        """``[None, 10]``; ValueError when the rank is unknown (as TensorFlow)."""
        if self.dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape")
        return [d.value for d in self.dims]

    def is_compatible_with(self, other) -> bool:
        """Could both describe one tensor (same rank, equal dims where both are known)?"""
        other = other if isinstance(other, TensorShape) else TensorShape(other)
        return self.dims is None or other.dims is None or len(self.dims) == len(other.dims) \
            and all(None in (a.value, b.value) or a.value == b.value
                    for a, b in zip(self.dims, other.dims))

    def merge_with(self, other) -> TensorShape:
        """What both say; ValueError when they are not compatible (TensorFlow's)."""
        other = other if isinstance(other, TensorShape) else TensorShape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        if self.dims is None or other.dims is None:
            return other if self.dims is None else self
        return TensorShape([b.value if a.value is None else a.value
                            for a, b in zip(self.dims, other.dims)])

    def is_fully_defined(self) -> bool:
        return self.dims is not None and all(d.value is not None for d in self.dims)

    def __len__(self) -> int:
        if self.dims is None:
            raise ValueError("the rank of this shape is unknown")
        return len(self.dims)

    def __iter__(self):
        return iter(self.dims if self.dims is not None else ())

    def __getitem__(self, index):
        if self.dims is None:
            return Dimension(None)
        if isinstance(index, slice):
            return TensorShape(self.dims[index])
        return self.dims[index]

    def __eq__(self, other):
        other = other if isinstance(other, TensorShape) else TensorShape(other)
        return self.dims is not None and other.dims is not None and \
            [d.value for d in self.dims] == [d.value for d in other.dims]

    def __repr__(self) -> str:
        return "TensorShape(None)" if self.dims is None else \
            f"TensorShape({[d.value for d in self.dims]})"

    def __str__(self) -> str:
        if self.dims is None:
            return "<unknown>"
        return "(" + ", ".join(str(d) for d in self.dims) + ("," if len(self.dims) == 1 else "") \
            + ")"
