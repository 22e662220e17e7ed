"""``tf.errors``: TensorFlow's run-time error classes, as ``tf.gfile`` and the summary ops raise
them (``except tf.errors.NotFoundError:`` works as in TF-1 programs)."""
from __future__ import annotations

__all__ = ["AlreadyExistsError", "FailedPreconditionError", "InvalidArgumentError",  # noqa: F822
           "NotFoundError", "OpError", "PermissionDeniedError", "ResourceExhaustedError"]


class OpError(Exception):
    """TensorFlow's base error: ``message``, and the ``node_def`` and ``op`` it came from (None
    when no op raised it)."""

    def __init__(self, node_def, op, message):
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


class FailedPreconditionError(OpError):
    """The system is not in a state the operation needs (a directory that is not empty)."""


def __getattr__(name):
    # ResourceExhaustedError lives beside the executor that raises it (a TinyflowError and a
    # MemoryError too); imported on first use: the executor imports torch and this module
    if name == "ResourceExhaustedError":
        from .executor.memory import ResourceExhaustedError
        return ResourceExhaustedError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
