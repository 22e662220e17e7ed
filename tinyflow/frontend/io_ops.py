"""``tf.io``'s file and tensor-bytes functions (TensorFlow 1.15's, also ``tf.X`` at the top):
``matching_files``, ``write_file``, ``serialize_tensor`` and ``parse_tensor``; their ops are in
:mod:`tinyflow.ops.file_io`.

``matching_files`` follows TF's glob: ``*``, ``?`` and ``[...]`` within one path component,
a backslash escaping the next character, hidden files matched too; a pattern without them is
the file itself when it exists; names are sorted, a relative pattern's under ``./``.  A
pattern fed at run time is untrusted: matching is Python's ``fnmatch`` (no backtracking blow-up)
per component.  ``parse_tensor``'s bytes are untrusted too (:mod:`.tensor_proto`).
"""
from __future__ import annotations

import errno
import fnmatch
import os
import re

import numpy as np

from ..nnvm.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    UnknownError,
)
from ..nnvm.symbol import Symbol, create_op, current_context
from ..nnvm.tensor_shape import TensorShape
from ..ops import file_io  # noqa: F401 - registers the ops
from . import tensor_proto
from .checkpoint_format import FormatError
from .dtypes import as_dtype
from .math_ops import convert_to_tensor

__all__ = ["matching_files", "parse_tensor", "serialize_tensor", "write_file"]

_WILD = re.compile(r"[*?\[\\]")  # TF's glob characters (an escape too)
_ESCAPED = re.compile(r"\\(.)")


def _string(value, what: str, ranks: tuple) -> Symbol:
    tensor = value if isinstance(value, Symbol) else convert_to_tensor(value, dtype="string")
    if tensor.dtype.name != "string":
        raise TypeError(f"{what} takes a string tensor, got {tensor.dtype.name}")
    if tensor.get_shape().ndims not in (None, *ranks):
        raise ValueError(f"Shape must be {'at most rank 1' if 1 in ranks else 'rank 0'} but "
                         f"is rank {tensor.get_shape().ndims} for '{what}' with input shape "
                         f"{tensor.get_shape()}")
    return tensor


def _text(value) -> str:
    return os.fsdecode(value) if isinstance(value, bytes) else str(value)


# -- matching_files ------------------------------------------------------------------------------
def matching_files(pattern, name=None) -> Symbol:
    """``tf.io.matching_files``: the sorted names of the files ``pattern`` (a string or a
    vector of them) matches, a string vector (see the module's docstring for the glob)."""
    tensor = _string(pattern, "MatchingFiles", (0, 1))
    matched = create_op("matching_files", tensor, func=_matches, name=name or "MatchingFiles")
    current_context().declared_shapes[matched.outputs[0]] = TensorShape([None])
    return matched


def _matches(node, inputs):
    """matching_files' run-time side: every pattern's matches, sorted together."""
    patterns = np.asarray(inputs[0], dtype=object).reshape(-1).tolist()
    found = sorted(path for pattern in patterns for path in _glob(_text(pattern)))
    out = np.empty(len(found), dtype=object)
    out[:] = [os.fsencode(path) for path in found]
    return [out]


def _glob(pattern: str) -> list:
    if not _WILD.search(pattern):
        plain = _ESCAPED.sub(r"\1", pattern)
        return [plain] if os.path.lexists(plain) else []
    parts = pattern.split("/")
    fixed = next(k for k, part in enumerate(parts) if _WILD.search(part))
    base = "/".join(parts[:fixed]) or ("/" if pattern.startswith("/") else ".")
    candidates = [_ESCAPED.sub(r"\1", base)]
    for part in parts[fixed:]:
        if not part:  # a trailing or doubled "/": TF's glob matches nothing more there
            continue
        matcher = re.compile(fnmatch.translate(_ESCAPED.sub(
            lambda m: "[" + m.group(1) + "]", part)), re.DOTALL)
        following = []
        for folder in candidates:
            if not _WILD.search(part):
                path = os.path.join(folder, _ESCAPED.sub(r"\1", part))
                following += [path] if os.path.lexists(path) else []
                continue
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            following += [os.path.join(folder, n) for n in names if matcher.match(n)]
        candidates = following
    return candidates


# -- write_file ----------------------------------------------------------------------------------
def write_file(filename, contents, name=None) -> Symbol:
    """``tf.io.write_file``: an operation writing ``contents`` (a string scalar) to the file
    ``filename`` names, making its folders (TF's WriteFile), each run that fetches it."""
    target = _string(filename, "WriteFile", (0,))
    data = _string(contents, "WriteFile", (0,))
    op = create_op("write_file", target, data, func=_write, name=name or "WriteFile")
    return Symbol(op.outputs, is_operation=True)


def _write(node, inputs):
    path = _text(np.asarray(inputs[0], dtype=object).item())
    data = np.asarray(inputs[1], dtype=object).item()
    try:
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        with open(path, "wb") as file:
            file.write(bytes(data))
    except OSError as err:
        kind = {errno.EISDIR: FailedPreconditionError, errno.ENOTDIR: FailedPreconditionError,
                errno.ENOENT: NotFoundError, errno.EACCES: PermissionDeniedError,
                errno.EPERM: PermissionDeniedError}.get(err.errno, UnknownError)
        raise kind(None, node.name, f"{path}; {err.strerror}") from None
    return np.array(True)


# -- serialize_tensor / parse_tensor -------------------------------------------------------------
def serialize_tensor(tensor, name=None) -> Symbol:
    """``tf.io.serialize_tensor``: ``tensor``'s ``TensorProto`` bytes (TF's, byte for byte),
    a string scalar."""
    value = tensor if isinstance(tensor, Symbol) else convert_to_tensor(tensor)
    return create_op("serialize_tensor", value, func=_serialize,
                     name=name or "SerializeTensor")


def _serialize(node, inputs):
    return tensor_proto.serialize(np.asarray(inputs[0]))  # a scalar's value is its bytes


def parse_tensor(serialized, out_type, name=None) -> Symbol:
    """``tf.io.parse_tensor``: the tensor of dtype ``out_type`` whose ``TensorProto`` bytes
    ``serialized`` (a string scalar) holds; its shape known once it ran.  Bytes that are not
    one, or of another dtype, are TF's ``InvalidArgumentError``."""
    tensor = _string(serialized, "ParseTensor", (0, 1))
    dtype = as_dtype(out_type)
    return create_op("parse_tensor", tensor, out_type=dtype.name, func=_parse,
                     name=name or "ParseTensor")


def _parse(node, inputs):
    data = np.asarray(inputs[0], dtype=object)
    if data.ndim:
        raise InvalidArgumentError(None, node.name, (
            f"{node.describe()}: Expected `serialized` to be a scalar, got shape: "
            f"{list(data.shape)}"))
    try:
        return [tensor_proto.parse(data.item(), node.attrs["out_type"], node.describe())]
    except FormatError as err:
        raise InvalidArgumentError(None, node.name, f"Could not parse `serialized` as "
                                                    f"TensorProto: {err}") from None
    except ValueError as err:
        raise InvalidArgumentError(None, node.name, f"{node.describe()}: {err}") from None
