"""``tf.errors``: TensorFlow's run-time error classes, as ``tf.gfile``, the summary ops and the
executor raise them (``except tf.errors.NotFoundError:`` works as in TF-1 programs).  They are
defined in the engine (tinyflow/nnvm/errors.py), which raises them."""
from __future__ import annotations

from ..nnvm.errors import (
    AbortedError,
    AlreadyExistsError,
    CancelledError,
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    OpError,
    OutOfRangeError,
    PermissionDeniedError,
    ResourceExhaustedError,
)

__all__ = ["AbortedError", "AlreadyExistsError", "CancelledError", "DeadlineExceededError", "FailedPreconditionError", "InvalidArgumentError",
           "NotFoundError", "OpError",
           "OutOfRangeError", "PermissionDeniedError", "ResourceExhaustedError"]
