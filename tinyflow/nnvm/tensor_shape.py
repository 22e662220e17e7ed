"""``TensorShape`` and ``Dimension``: a tensor's static shape as TensorFlow 1 shows it.

Shapes in the graph layer are tuples of ints, or None where inference cannot tell.  TF-1
programs read static shapes partly known (``[None, 10]`` for a batch fed at run time), so
:func:`tinyflow.nnvm.symbol.static_shape` infers twice with two different stand-in sizes for every
unknown placeholder dimension: a dimension that comes out the same both times is known, one that
differs depends on a fed size and is ``None``.
"""
from __future__ import annotations

__all__ = ["Dimension", "TensorShape", "as_dimension", "as_shape"]

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

    def __ne__(self, other):
        equal = self.__eq__(other)
        return None if equal is None else not equal

    def __hash__(self):
        return hash(self.value)

    def is_compatible_with(self, other) -> bool:
        other = as_dimension(other)
        return self.value is None or other.value is None or self.value == other.value

    def assert_is_compatible_with(self, other) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {as_dimension(other)} are not compatible")

    def merge_with(self, other) -> Dimension:
        """What both say; ValueError when they differ (TensorFlow's)."""
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(other.value if self.value is None else self.value)

    def _combine(self, other, function):  # unknown when either is (TF's Dimension arithmetic)
        other = as_dimension(other)
        return Dimension(None if self.value is None or other.value is None
                         else function(self.value, other.value))

    def __add__(self, other):
        return self._combine(other, lambda a, b: a + b)

    def __sub__(self, other):
        return self._combine(other, lambda a, b: a - b)

    def __mul__(self, other):
        return self._combine(other, lambda a, b: a * b)

    def __floordiv__(self, other):
        return self._combine(other, lambda a, b: a // b)

    def __mod__(self, other):
        return self._combine(other, lambda a, b: a % b)

    def __radd__(self, other):
        return as_dimension(other) + self

    def __rsub__(self, other):
        return as_dimension(other) - self

    def __rmul__(self, other):
        return as_dimension(other) * self

    def __rfloordiv__(self, other):
        return as_dimension(other) // self

    def __rmod__(self, other):
        return as_dimension(other) % self

    __truediv__, __rtruediv__ = __floordiv__, __rfloordiv__  # TF 1's Dimension division

    def _compare(self, other, function):  # None when either is unknown
        other = as_dimension(other)
        return None if self.value is None or other.value is None \
            else function(self.value, other.value)

    def __lt__(self, other):
        return self._compare(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._compare(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._compare(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._compare(other, lambda a, b: a >= b)

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

    @property
    def rank(self) -> int | None:
        return self.ndims

    def num_elements(self) -> int | None:
        """The number of elements, None unless fully defined."""
        if not self.is_fully_defined():
            return None
        count = 1
        for d in self.dims:
            count *= d.value
        return count

    def concatenate(self, other) -> TensorShape:
        """These dims then ``other``'s; an unknown rank when either has one."""
        other = other if isinstance(other, TensorShape) else TensorShape(other)
        return TensorShape(None if self.dims is None or other.dims is None
                           else self.dims + other.dims)

    __add__ = concatenate

    def __radd__(self, other):
        return TensorShape(other).concatenate(self)

    def with_rank(self, rank) -> TensorShape:
        """This shape with rank ``rank`` (ValueError when it has another)."""
        if self.dims is not None and len(self.dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self if self.dims is not None else TensorShape([None] * rank)

    def with_rank_at_least(self, rank) -> TensorShape:
        if self.dims is not None and len(self.dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank) -> TensorShape:
        if self.dims is not None and len(self.dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_has_rank(self, rank) -> None:
        if self.dims is not None and len(self.dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other) -> None:
        other = other if isinstance(other, TensorShape) else TensorShape(other)
        if self.dims is not None and other.dims is not None and \
                len(self.dims) != len(other.dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_is_compatible_with(self, other) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def assert_is_fully_defined(self) -> None:
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def most_specific_compatible_shape(self, other) -> TensorShape:
        """The most specific shape both are compatible with: the dims they agree on."""
        other = other if isinstance(other, TensorShape) else TensorShape(other)
        if self.dims is None or other.dims is None or len(self.dims) != len(other.dims):
            return TensorShape(None)
        return TensorShape([a.value if a.value == b.value else None
                            for a, b in zip(self.dims, other.dims)])

    def __ne__(self, other):
        return not self.__eq__(other)

    def __bool__(self) -> bool:  # TF's __nonzero__: the rank is known
        return self.dims is not None

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
        return f"TensorShape({self.dims!r})"  # TF 1.15's: TensorShape([Dimension(2), ...])

    def __str__(self) -> str:
        if self.dims is None:
            return "<unknown>"
        return "(" + ", ".join(str(d) for d in self.dims) + ("," if len(self.dims) == 1 else "") \
            + ")"


def as_dimension(value) -> Dimension:
    """``value`` as a :class:`Dimension` (TF's ``tf.compat.v1.dimension``)."""
    return value if isinstance(value, Dimension) else Dimension(value)


def as_shape(shape) -> TensorShape:
    """``shape`` as a :class:`TensorShape`."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)
