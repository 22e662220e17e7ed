"""``tf.errors``: TensorFlow's run-time error classes, as ``tf.gfile``, the summary ops and the
executor raise them (``except tf.errors.NotFoundError:`` works as in TF-1 programs), TF's error
codes (``tf.errors.INVALID_ARGUMENT``..., each class's ``error_code``) and the two maps between
them.  The classes are defined in the engine (tinyflow/nnvm/errors.py), which raises them."""
from __future__ import annotations

from ..nnvm.errors import (
    AbortedError,
    AlreadyExistsError,
    CancelledError,
    DataLossError,
    DeadlineExceededError,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    OpError,
    OutOfRangeError,
    PermissionDeniedError,
    ResourceExhaustedError,
    UnauthenticatedError,
    UnavailableError,
    UnimplementedError,
    UnknownError,
)

# TensorFlow's error codes (tensorflow/core/protobuf/error_codes.proto)
OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND = 0, 1, 2, 3, 4, 5
ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION = 6, 7, 8, 9
ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS = 10, 11, 12, 13, 14, 15
UNAUTHENTICATED = 16

_CLASSES = (CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError,
            NotFoundError, AlreadyExistsError, PermissionDeniedError, UnauthenticatedError,
            ResourceExhaustedError, FailedPreconditionError, AbortedError, OutOfRangeError,
            UnimplementedError, InternalError, UnavailableError, DataLossError)
_CLASS_OF_CODE = {cls.error_code: cls for cls in _CLASSES}


def exception_type_from_error_code(error_code):
    """The class of TF's error code ``error_code`` (KeyError for another number, as TF
    1.15's)."""
    return _CLASS_OF_CODE[error_code]


def error_code_from_exception_type(cls) -> int:
    """TF's error code of the error class ``cls`` (KeyError for another class, as TF 1.15's)."""
    if cls not in _CLASSES:
        raise KeyError(cls)
    return cls.error_code


__all__ = ["ABORTED", "ALREADY_EXISTS", "CANCELLED", "DATA_LOSS", "DEADLINE_EXCEEDED",
           "FAILED_PRECONDITION", "INTERNAL", "INVALID_ARGUMENT", "NOT_FOUND", "OK",
           "OUT_OF_RANGE", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "UNAUTHENTICATED",
           "UNAVAILABLE", "UNIMPLEMENTED", "UNKNOWN", "AbortedError", "AlreadyExistsError",
           "CancelledError", "DataLossError", "DeadlineExceededError", "FailedPreconditionError",
           "InternalError", "InvalidArgumentError", "NotFoundError", "OpError",
           "OutOfRangeError", "PermissionDeniedError", "ResourceExhaustedError",
           "UnauthenticatedError", "UnavailableError", "UnimplementedError", "UnknownError",
           "error_code_from_exception_type", "exception_type_from_error_code"]
