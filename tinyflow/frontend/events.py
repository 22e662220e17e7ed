"""What TensorBoard reads, built with the ``tensorboard`` package (the library
``torch.utils.tensorboard`` writes with): its compiled protocol buffers, which are TensorFlow's
own (``summary.proto``, ``event.proto``, ``graph.proto``, ``config.proto``,
``step_stats.proto``), and its TFRecord writer for the event files.

``tensorboard`` is imported on first use, so ``import tinyflow`` does not load protobuf; when it
is missing, the first summary or FileWriter says how to install it.  Messages are serialized
deterministically (map entries sorted by key), as TensorFlow's kernels write them.
"""
from __future__ import annotations

import itertools
import numbers
import os
import socket
import time

from ..session.options import proto, tensorboard
from . import errors, gfile

__all__ = ["DATA_TYPES", "attr_value", "data_type", "event", "node_def", "open_event_file", "proto",
           "serialize", "summary_value", "tensor_shape"]

# TinyFlow's dtype names as TensorFlow's DataType enum names (types.proto)
DATA_TYPES = {"float32": "DT_FLOAT", "float64": "DT_DOUBLE", "int32": "DT_INT32",
              "uint8": "DT_UINT8", "int16": "DT_INT16", "int8": "DT_INT8",
              "string": "DT_STRING", "int64": "DT_INT64", "bool": "DT_BOOL",
              "float16": "DT_HALF"}


def serialize(message) -> bytes:
    """``message`` as bytes, map entries in key order (TensorFlow's own bytes)."""
    return message.SerializeToString(deterministic=True)


def data_type(name: str) -> int:
    """The ``DataType`` enum value of a TinyFlow dtype name (``"float32"`` -> ``DT_FLOAT``)."""
    return proto("types_pb2").DataType.Value(DATA_TYPES[name])


def tensor_shape(shape):
    """A ``TensorShapeProto``: ``None`` for an unknown rank, unknown (None) dims as -1."""
    shape_pb2 = proto("tensor_shape_pb2")
    if shape is None:
        return shape_pb2.TensorShapeProto(unknown_rank=True)
    return shape_pb2.TensorShapeProto(dim=[
        shape_pb2.TensorShapeProto.Dim(size=-1 if d is None else int(d)) for d in shape])


def attr_value(value):
    """An ``AttrValue``: a dtype name (``"float32"``) as ``type``, a ``TensorShapeProto`` (see
    :func:`tensor_shape`) as ``shape``, a bool as ``b``, an int as ``i``, a float as ``f``, a
    list or tuple as ``list`` (of ``i``, ``f``, ``shape`` or ``s``), else ``s``."""
    attr_pb2, shape_pb2 = proto("attr_value_pb2"), proto("tensor_shape_pb2")
    if isinstance(value, str) and value in DATA_TYPES:
        return attr_pb2.AttrValue(type=data_type(value))
    if isinstance(value, shape_pb2.TensorShapeProto):
        return attr_pb2.AttrValue(shape=value)
    if isinstance(value, (bool, numbers.Real)):
        key = "b" if isinstance(value, bool) else "i" if isinstance(value, numbers.Integral) \
            else "f"
        return attr_pb2.AttrValue(**{key: value})
    if isinstance(value, (list, tuple)):
        items = attr_pb2.AttrValue.ListValue()
        if all(isinstance(v, shape_pb2.TensorShapeProto) for v in value):
            items.shape.extend(value)
        elif all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value):
            integral = all(isinstance(v, numbers.Integral) for v in value)
            (items.i if integral else items.f).extend(value)
        else:
            items.s.extend(str(v).encode() for v in value)
        return attr_pb2.AttrValue(list=items)
    return attr_pb2.AttrValue(s=str(value).encode())


def node_def(name: str, op: str, inputs=(), attrs=None):
    """A ``NodeDef``, each of ``attrs`` (a dict) through :func:`attr_value`."""
    return proto("node_def_pb2").NodeDef(
        name=name, op=op, input=list(inputs),
        attr={key: attr_value(value) for key, value in (attrs or {}).items()})


def summary_value(tag: str, **value) -> bytes:
    """A whole ``Summary`` of one ``Summary.Value`` with ``tag`` and ``value``'s fields
    (``simple_value``, ``histo``, ``image``, ``tensor``, ``metadata``), serialized.

    ``Summary.value`` is repeated, so summaries merge by concatenating their bytes."""
    summary_pb2 = proto("summary_pb2")
    return serialize(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, **value)]))


def event(step=None, wall_time=None, **what):
    """An ``Event`` at ``wall_time`` (now when None) and ``step`` (left out when None), with
    ``what``: ``file_version``, ``summary``, ``graph_def`` (bytes) or ``tagged_run_metadata``."""
    message = proto("event_pb2").Event(
        wall_time=time.time() if wall_time is None else wall_time, **what)
    if step is not None:
        message.step = int(step)
    return message


def open_event_file(logdir: str, suffix: str = ""):
    """A new event file in ``logdir`` named as TensorFlow names it,
    ``events.out.tfevents.<seconds>.<hostname><suffix>`` (``.1``, ``.2``... added rather than
    clobber a file made in the same second), as tensorboard's ``RecordWriter``.

    Raises
    ------
    tf.errors.OpError
        A ``PermissionDeniedError``, ``NotFoundError``... naming ``logdir`` when the directory
        cannot be made or the file cannot be written there.
    """
    record_writer = tensorboard("tensorboard.summary.writer.record_writer")
    try:
        gfile.MakeDirs(logdir)
        path = os.path.join(logdir, f"events.out.tfevents.{int(time.time()):010d}."
                                    f"{socket.gethostname()}{suffix}")
        for n in itertools.count():
            try:
                return record_writer.RecordWriter(gfile.GFile(path + (f".{n}" if n else ""),
                                                              "xb"))
            except errors.AlreadyExistsError:
                continue
    except errors.OpError as err:
        raise type(err)(None, None, f"FileWriter cannot write event files in logdir "
                                    f"'{logdir}': {err.message}") from err
