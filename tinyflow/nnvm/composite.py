"""``CompositeTensor``: a value made of several tensors (TensorFlow's name; ``tf.SparseTensor``
is one).  ``Session.run`` fetches its component tensors and gives back the value they make, and
a feed_dict key that is one is fed component by component, the composite pairing (and checking)
the parts of the fed value.  One with a dense form (``tf.IndexedSlices``) gives it to the ops it
is passed to, as TF's tensor conversion does."""
from __future__ import annotations

import abc

__all__ = ["CompositeTensor"]


class CompositeTensor(abc.ABC):
    """What the session asks of a value made of tensors."""

    @abc.abstractmethod
    def _components(self) -> tuple:
        """The component tensors (Symbols), in a fixed order."""

    @abc.abstractmethod
    def _from_components(self, values: list):
        """The fetched value, from one numpy array per component."""

    @abc.abstractmethod
    def _feed_components(self, value) -> list:
        """``[(component tensor, its value), ...]`` for a fed ``value``; an error naming the
        composite when ``value`` does not fit it."""

    def _as_tensor(self):
        """The dense tensor an op reading this value reads, or None where there is none."""
