"""Exceptions raised by the graph layer and the executor: TinyFlow's own, and TensorFlow's
run-time error classes (``tf.errors``), which the engine raises too."""

__all__ = ["AbortedError", "AlreadyExistsError", "BindError", "CancelledError", "DTypeError",
           "DataLossError", "DeadlineExceededError", "FailedPreconditionError", "GraphError",
           "InternalError", "InvalidArgumentError", "NotFoundError", "OpError", "OutOfRangeError",
           "PermissionDeniedError", "ResourceExhaustedError", "RunShapeError", "ShapeError",
           "TinyflowError", "UnauthenticatedError", "UnavailableError", "UnfedPlaceholderError",
           "UnimplementedError", "UninitializedVariableError", "UnknownError"]


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

    error_code = 2  # TensorFlow's code of the class (tf.errors.UNKNOWN here)

    def __init__(self, node_def, op, message, error_code=None) -> None:
        super().__init__(message)
        self.node_def, self.op, self.message = node_def, op, message
        if error_code is not None:
            self.error_code = int(error_code)


class NotFoundError(OpError):
    """A file or directory that does not exist."""

    error_code = 5


class AlreadyExistsError(OpError):
    """A file or directory that is already there."""

    error_code = 6


class PermissionDeniedError(OpError):
    """No permission for a file operation."""

    error_code = 7


class InvalidArgumentError(OpError):
    """A value an op cannot take (a NaN in a histogram, an image of the wrong shape)."""

    error_code = 3


class DeadlineExceededError(OpError):
    """A run that took longer than its ``tf.RunOptions(timeout_in_ms=...)``: its step was
    stopped between two Lua instructions (what ran before keeps its effect)."""

    error_code = 4


class CancelledError(OpError):
    """An operation cancelled: an enqueue into a closed queue, a queue's wait ended by its
    session closing."""

    error_code = 1


class OutOfRangeError(OpError):
    """The end of a sequence: an iterator's ``get_next`` past its last element (tf.data), a
    dequeue from a closed queue holding too few elements."""

    error_code = 11


class FailedPreconditionError(OpError):
    """The system is not in a state the operation needs (a directory that is not empty)."""

    error_code = 9


class ResourceExhaustedError(TinyflowError, OpError, MemoryError):
    """A run needs more memory than the device can give (TensorFlow's
    ``tf.errors.ResourceExhaustedError``): raised before allocating, so nothing ran and every
    variable keeps its value.  ``op`` is the name of the node whose buffer is the largest."""

    error_code = 8

    def __init__(self, message, node=None) -> None:
        OpError.__init__(self, None, node.name if node is not None else None, message)


class UnknownError(OpError):
    """An error of no other class (TensorFlow's ``tf.errors.UnknownError``)."""


class InternalError(OpError):
    """A broken invariant of the system (``tf.errors.InternalError``)."""

    error_code = 13


class UnimplementedError(OpError):
    """An operation not implemented for its arguments (``tf.errors.UnimplementedError``)."""

    error_code = 12


class AbortedError(OpError):
    """An operation aborted by a concurrent one (``tf.errors.AbortedError``)."""

    error_code = 10


class UnavailableError(OpError):
    """A service not available now (``tf.errors.UnavailableError``)."""

    error_code = 14


class DataLossError(OpError):
    """Data lost or corrupted beyond repair (``tf.errors.DataLossError``)."""

    error_code = 15


class UnauthenticatedError(OpError):
    """A request without valid credentials (``tf.errors.UnauthenticatedError``)."""

    error_code = 16



class _RunError:
    """An error found as a run binds its graph: TF raises it from the run, as the ``tf.errors``
    class it also derives from."""

    def __init__(self, message) -> None:
        OpError.__init__(self, None, None, message)


class UninitializedVariableError(_RunError, BindError, FailedPreconditionError):
    """A run reading a variable that holds no value (TF: "Attempting to use uninitialized")."""


class UnfedPlaceholderError(_RunError, BindError, InvalidArgumentError):
    """A run needing a placeholder nobody fed (TF: "You must feed a value for placeholder")."""


class RunShapeError(_RunError, ShapeError, InvalidArgumentError):
    """Shapes known only from a run's feeds that do not fit an op's rule."""
