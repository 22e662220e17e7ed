"""Exceptions raised by the graph layer and the executor: TinyFlow's own, and TensorFlow's
run-time error classes (``tf.errors``), which the engine raises too."""

__all__ = ["AbortedError", "AlreadyExistsError", "BindError", "CancelledError", "DTypeError", "DeadlineExceededError",
           "FailedPreconditionError",
           "GraphError", "InvalidArgumentError", "NotFoundError", "OpError", "OutOfRangeError",
           "PermissionDeniedError", "ResourceExhaustedError", "ShapeError", "TinyflowError"]


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


class OpError(Exception):
    """TensorFlow's base error: ``message``, and the ``node_def`` and ``op`` it came from (None
    when no op raised it)."""

    def __init__(self, node_def, op, message) -> None:
        super().__init__(message)
        self.node_def, self.op, self.message = node_def, op, message


class NotFoundError(OpError):
    """A file or directory that does not exist."""


class AlreadyExistsError(OpError):
    """A file or directory that is already there."""


class PermissionDeniedError(OpError):
    """No permission for a file operation."""


class InvalidArgumentError(OpError):
    """A value an op cannot take (a NaN in a histogram, an image of the wrong shape)."""


class DeadlineExceededError(OpError):
    """A run that took longer than its ``tf.RunOptions(timeout_in_ms=...)``: its step was
    stopped between two Lua instructions (what ran before keeps its effect)."""


class AbortedError(OpError):
    """An operation aborted (TensorFlow: a worker preempted); ``tf.train.basic_train_loop``
    starts its managed session again after one."""


class CancelledError(OpError):
    """An operation cancelled: an enqueue into a closed queue, a queue's wait ended by its
    session closing."""


class OutOfRangeError(OpError):
    """The end of a sequence: an iterator's ``get_next`` past its last element (tf.data), a
    dequeue from a closed queue holding too few elements."""


class FailedPreconditionError(OpError):
    """The system is not in a state the operation needs (a directory that is not empty)."""


class ResourceExhaustedError(TinyflowError, OpError, MemoryError):
    """A run needs more memory than the device can give (TensorFlow's
    ``tf.errors.ResourceExhaustedError``): raised before allocating, so nothing ran and every
    variable keeps its value.  ``op`` is the name of the node whose buffer is the largest."""

    def __init__(self, message, node=None) -> None:
        OpError.__init__(self, None, node.name if node is not None else None, message)
