"""Exceptions raised by the graph layer and the executor."""

__all__ = ["BindError", "DTypeError", "GraphError", "ShapeError", "TinyflowError"]


class TinyflowError(Exception):
    """Base class of the errors TinyFlow raises on bad graphs or bad input."""


class ShapeError(TinyflowError, ValueError):
    """Shapes that do not fit an op's rule; the message names the op, node and shapes."""


class DTypeError(TinyflowError, TypeError):
    """Dtypes that do not fit an op's rule (float32 + int32, exp of an int32); the message names
    the op, node and dtypes, as TensorFlow's TypeError does."""


class GraphError(TinyflowError, ValueError):
    """A malformed graph: unknown node, missing gradient rule, cycle, bad pass input."""


class BindError(TinyflowError, ValueError):
    """A graph that cannot be bound to run: an unfed placeholder, a variable read before it is
    initialised, a missing Lua body."""
