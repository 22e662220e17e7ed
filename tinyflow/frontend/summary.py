"""``tf.summary``: summary ops whose fetched value is a serialized ``Summary`` protobuf, and
``FileWriter``, which writes them (and graphs, and run metadata) as TensorBoard's event files.

A summary op is an ordinary graph node (a name under the name scope, in the SUMMARIES
collection) whose op has an ``FPythonCompute``: when fetched, the session runs its inputs in
the executor, then builds the bytes here in Python (a merge from the bytes of its inputs).  Its
tag is its node's name, as TensorFlow's (``layer1/weights/summaries/mean``), behind the
``family`` when one is given.

Every message is one of TensorFlow's protocol buffers built with the ``tensorboard`` package's
compiled protos, and event files are written with its record writer (``tinyflow/events.py``).
"""
from __future__ import annotations

import contextlib
import importlib
import re
import sys
import time

import numpy as np

from ..nnvm.attrs import no_gradient
from ..nnvm.composite import CompositeTensor
from ..nnvm.errors import TinyflowError
from ..nnvm.graph import Graph, apply_passes
from ..nnvm.op import register_op
from ..nnvm.symbol import NodeEntry, Symbol, create_op, current_context
from ..nnvm.tensor_shape import _STAND_INS, TensorShape
from ..ops.image_codec_kernels import png_encode
from . import events
from .errors import InvalidArgumentError
from .framework import GraphKeys

__all__ = ["FileWriter", "histogram", "image", "merge", "merge_all", "scalar", "text"]


def _bucket_limits() -> np.ndarray:
    """TensorFlow's default histogram buckets: +-1e-12 growing by 10% to 1e20, 0 and
    +-DBL_MAX at the ends (``histogram.cc``)."""
    positive, v = [], 1e-12
    while v < 1e20:
        positive.append(v)
        v *= 1.1
    positive.append(sys.float_info.max)
    limits = np.array([-x for x in reversed(positive)] + [0.0] + positive)
    limits.flags.writeable = False
    return limits


_BUCKET_LIMITS = _bucket_limits()


def _tag(node) -> str:
    family = node.attrs.get("family")
    return node.name if family is None else f"{family}/{node.name}"


def _scalar(node, inputs) -> bytes:
    value = np.asarray(inputs[0])
    if value.ndim != 0:
        raise InvalidArgumentError(None, node, f"tags and values not the same shape: [] != "
                                   f"{list(value.shape)} (tag '{_tag(node)}')")
    return events.summary_value(_tag(node), simple_value=float(value))


def _histogram(node, inputs) -> bytes:
    """TensorFlow's HistogramProto: value v counts in the first bucket whose limit is above
    it; runs of empty buckets are written as one; sums are added in order, as TF does
    (``Histogram::Add``, ``EncodeToProto``)."""
    values = np.asarray(inputs[0], dtype=np.float64).ravel()
    for bad, what in ((np.isnan, "Nan"), (np.isinf, "Infinity")):
        if bad(values).any():
            raise InvalidArgumentError(None, node, f"{what} in summary histogram for: "
                                       f"{node.name}")
    index = np.minimum(np.searchsorted(_BUCKET_LIMITS, values, side="right"),
                       len(_BUCKET_LIMITS) - 1)
    counts = np.bincount(index, minlength=len(_BUCKET_LIMITS)).astype(np.float64)
    keep = (counts > 0) | np.append(counts[1:] > 0, True)  # a run of zeros ends at its last
    if values.size:
        low, high = values.min(), values.max()
        total, squares = np.cumsum(values)[-1], np.cumsum(values * values)[-1]  # in order
    else:  # TF's empty histogram
        low, high, total, squares = _BUCKET_LIMITS[-1], -_BUCKET_LIMITS[-1], 0.0, 0.0
    histo = events.proto("summary_pb2").HistogramProto(
        min=low, max=high, num=values.size, sum=total, sum_squares=squares,
        bucket_limit=_BUCKET_LIMITS[keep].tolist(), bucket=counts[keep].tolist())
    return events.summary_value(_tag(node), histo=histo)


def _to_uint8(image: np.ndarray) -> np.ndarray:
    """TensorFlow's ImageSummary scaling of a float image: by 255 / max when nothing is
    negative, else by 127 / max |x| around 128; non-finite pixels red."""
    image = image.astype(np.result_type(image.dtype, np.float32))
    finite = np.isfinite(image).all(axis=-1)
    seen = image[finite]
    low, high = (seen.min(), seen.max()) if seen.size else (np.inf, -np.inf)
    if low < 0:
        top = max(abs(low), abs(high))
        scale, offset = (0.0 if top < 1e-6 else 127.0 / top), 128.0
    else:
        scale, offset = (0.0 if high < 1e-6 else 255.0 / high), 0.0
    out = np.where(finite[..., None], image * image.dtype.type(scale) + offset, 0)
    out = out.astype(np.uint8)
    out[~finite] = np.array([255, 0, 0, 255][:image.shape[-1]], np.uint8)
    return out


def _image(node, inputs) -> bytes:
    images = np.asarray(inputs[0])
    if images.ndim != 4 or images.shape[-1] not in (1, 3, 4):
        raise InvalidArgumentError(None, node, f"Tensor must be 4-D with last dim 1, 3, or "
                                   f"4, not {list(images.shape)} (tag '{_tag(node)}')")
    max_outputs, tag = node.attrs["max_outputs"], _tag(node)
    values = []
    for i, picture in enumerate(images[:max_outputs]):
        pixels = picture if images.dtype == np.uint8 else _to_uint8(picture)
        height, width, channels = pixels.shape
        values.append(events.summary_value(
            f"{tag}/image/{i}" if max_outputs > 1 else f"{tag}/image",
            image=events.proto("summary_pb2").Summary.Image(
                height=height, width=width, colorspace=channels,
                encoded_image_string=png_encode(pixels, -1))))
    return b"".join(values)


def _text(node, inputs) -> bytes:
    values = np.asarray(inputs[0], dtype=object)
    if not all(isinstance(v, bytes) for v in values.flat):
        raise InvalidArgumentError(None, node, f"tf.summary.text takes a string tensor "
                                   f"(tag '{_tag(node)}')")
    summary_pb2 = events.proto("summary_pb2")
    tensor = events.proto("tensor_pb2").TensorProto(
        dtype=events.data_type("string"), tensor_shape=events.tensor_shape(values.shape),
        string_val=list(values.flat))
    plugin = summary_pb2.SummaryMetadata.PluginData(plugin_name="text")
    return events.summary_value(_tag(node), tensor=tensor,
                                metadata=summary_pb2.SummaryMetadata(plugin_data=plugin))


def _tags(node) -> list:
    """The tags of the summaries ``node`` (a summary or a merge) writes (images: the base)."""
    if node.kind != "merge_summary":
        return [_tag(node)]
    return [tag for entry in node.inputs for tag in _tags(entry.node)]


def _merge(node, inputs) -> bytes:
    """Summaries merge by concatenation (``Summary.value`` is repeated); a tag twice is
    TensorFlow's error."""
    if not all(isinstance(v, bytes) for v in inputs):
        raise InvalidArgumentError(None, node, f"merge '{node.name}' takes summaries only")
    tags = _tags(node)
    duplicate = next((t for i, t in enumerate(tags) if t in tags[:i]), None)
    if duplicate is not None:
        raise InvalidArgumentError(None, node, f"Duplicate tag {duplicate} found in summary "
                                   f"inputs")
    return b"".join(inputs)


for _name, _compute, _doc in (
        ("scalar_summary", _scalar, "A Summary of one scalar (attrs family)."),
        ("histogram_summary", _histogram, "A Summary of a histogram of x (attrs family)."),
        ("image_summary", _image, "A Summary of images (attrs max_outputs, family)."),
        ("text_summary", _text, "A Summary of a string tensor (attrs family)."),
        ("merge_summary", _merge, "The Summaries of num_args inputs as one.")):
    (register_op(_name).describe(_doc + "  Computed in Python: see tinyflow/summary.py.")
     .set_num_inputs(lambda attrs: attrs.get("num_args", 1))
     .set_attr("FInferShape", lambda attrs, ins, outs: (ins, [()]))
     .set_attr("FInferType", lambda attrs, ins, outs: (ins, ["string"]))
     .set_attr("FGradient", no_gradient).set_attr("FPythonCompute", _compute))


def _clean_tag(name):
    """TensorFlow's ``clean_tag``: characters other than ``[-/\\w.]`` become ``_``, and a
    leading ``/`` goes."""
    return None if name is None else re.sub(r"[^-/\w\.]", "_", name).lstrip("/")


def _summary(op_name, name, tensor, collections, family, **attrs):
    """A summary node named ``[family/]name`` under the name scope, in ``collections``."""
    name, family = _clean_tag(name), _clean_tag(family)
    if isinstance(tensor, CompositeTensor) and tensor._as_tensor() is not None:
        tensor = tensor._as_tensor()  # an IndexedSlices summarised dense, as TF converts it
    summary = create_op(op_name, tensor, name=name if family is None else f"{family}/{name}",
                        family=family, **attrs)
    for key in (GraphKeys.SUMMARIES,) if collections is None else collections:
        current_context().add_to_collection(key, summary)
    return summary


def scalar(name, tensor, collections=None, family=None) -> Symbol:
    """A summary of the scalar ``tensor`` (cast to float), tagged with its node's name."""
    return _summary("scalar_summary", name, tensor, collections, family)


def histogram(name, values, collections=None, family=None) -> Symbol:
    """A summary of the histogram of ``values`` in TensorFlow's buckets (NaN or inf is an
    InvalidArgumentError when it runs)."""
    return _summary("histogram_summary", name, values, collections, family)


def image(name, tensor, max_outputs=3, collections=None, family=None) -> Symbol:
    """A summary of up to ``max_outputs`` PNG images from ``tensor`` [batch, height, width,
    1 | 3 | 4]: uint8 as it is, floats scaled as TensorFlow does; tagged ``<tag>/image`` when
    ``max_outputs`` is 1, else ``<tag>/image/<i>``."""
    return _summary("image_summary", name, tensor, collections, family,
                    max_outputs=int(max_outputs))


def text(name, tensor, collections=None) -> Symbol:
    """A summary of a string tensor for TensorBoard's text dashboard."""
    return _summary("text_summary", name, tensor, collections, None)


def merge(inputs, collections=None, name=None) -> Symbol:
    """One summary holding every value of ``inputs`` (node ``Merge/MergeSummary``)."""
    name = _clean_tag(name)
    with current_context().name_scope(name or "Merge"):
        merged = create_op("merge_summary", *inputs, num_args=len(inputs),
                           name=name or "MergeSummary")
    for key in collections or ():
        current_context().add_to_collection(key, merged)
    return merged


def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None) -> Symbol | None:
    """:func:`merge` of the summaries in collection ``key`` (whose names start with
    ``scope``), or None when there is none."""
    summaries = [s for s in current_context().get_collection(key)
                 if scope is None or s.op.name.startswith(scope)]
    return merge(summaries, name=name) if summaries else None


def _static_shapes(graph, entries) -> dict:
    """The static shape of each of ``entries`` (a tuple, None for a dim a fed size decides, or
    None when even the rank is unknown), inferred over the whole graph at once as
    ``tensor_shape.static_shape`` infers one entry: twice, unknown placeholder dims given two
    different stand-in sizes.  ``set_shape`` hints are merged in."""
    whole = Graph(entries)
    placeholders = [whole.indexed.nodes[i] for i in whole.indexed.input_nodes
                    if whole.indexed.nodes[i].kind == "placeholder"]
    runs = []
    for stand_in in _STAND_INS:
        known = {n: tuple(stand_in if d is None or d < 0 else d for d in n.attrs["shape"])
                 for n in placeholders if n.attrs.get("shape") is not None}
        try:
            inferred = apply_passes(whole.with_attrs(shape_inputs=known), "InferShape")
        except TinyflowError:  # a graph under construction may not infer yet
            return {}
        runs.append([inferred.attrs["shape"][inferred.indexed.entry_id(e)] for e in entries])
    shapes = {}
    for entry, first, second in zip(entries, *runs):
        same_rank = first is not None and second is not None and len(first) == len(second)
        shape = TensorShape([a if a == b else None for a, b in zip(first, second)]
                            if same_rank else None)
        hint = graph.shape_hints.get(entry)
        shape = shape if hint is None else shape.merge_with(hint)
        shapes[entry] = None if shape.dims is None else tuple(shape.as_list())
    return shapes


def _dtypes(entries) -> dict:
    """Each entry's dtype name, from one type inference over the whole graph ({} when it
    does not go through)."""
    try:
        inferred = apply_passes(Graph(entries), "InferType")
    except TinyflowError:
        return {}
    return {e: inferred.attrs["dtype"][inferred.indexed.entry_id(e)] for e in entries}


def _graph_def(graph):
    """The ``GraphDef`` TensorBoard's graph dashboard draws from ``graph`` (a ``tf.Graph``):
    per node its scoped name (TensorBoard groups by name scope), op, inputs (``"^name"`` for
    control ones), scalar and list attrs, ``dtype`` / ``T`` where known and
    ``_output_shapes`` (TensorFlow's ``add_shapes=True``: -1 for an unknown dim).

    Returns
    -------
    tensorboard.compat.proto.graph_pb2.GraphDef
    """
    nodes = list(graph.nodes_by_name.values())
    entries = [NodeEntry(n, i) for n in nodes for i in range(n.num_outputs())]
    shapes, types = _static_shapes(graph, entries), _dtypes(entries)
    defs = []
    for node in nodes:
        attrs = {k: v for k, v in node.attrs.items()
                 if k not in ("kind", "shape") and isinstance(v, (str, bool, int, float, list))}
        if node.op is None and "shape" in node.attrs:  # a placeholder's declared shape
            attrs["shape"] = events.tensor_shape(node.attrs["shape"])
        elif isinstance(node.attrs.get("shape"), (tuple, list)):
            attrs["shape"] = list(node.attrs["shape"])
        if types.get(NodeEntry(node, 0)) and node.op is not None:
            attrs["T"] = types[NodeEntry(node, 0)]
        attrs["_output_shapes"] = [events.tensor_shape(shapes.get(NodeEntry(node, i)))
                                   for i in range(node.num_outputs())]
        inputs = [e.node.name if e.index == 0 else f"{e.node.name}:{e.index}"
                  for e in node.inputs] + ["^" + c.name for c in node.control_deps]
        defs.append(events.node_def(node.name, node.type, inputs, attrs))  # TF's op types
    return events.proto("graph_pb2").GraphDef(node=defs)


def _summary_proto(summary):
    """``summary`` (a summary op's bytes, or a ``Summary`` protobuf) as tensorboard's
    ``Summary``; anything else a TypeError saying what add_summary takes."""
    summary_pb2 = events.proto("summary_pb2")
    if not isinstance(summary, bytes):
        if not hasattr(summary, "SerializeToString"):
            raise TypeError(f"FileWriter.add_summary takes a Summary: the bytes a summary op "
                            f"gives (sess.run(merged)) or a Summary protobuf, not "
                            f"{type(summary).__name__} {summary!r:.80}")
        summary = summary.SerializeToString()
    try:
        return summary_pb2.Summary.FromString(summary)
    except Exception as err:  # protobuf's DecodeError
        raise ValueError(f"FileWriter.add_summary: {summary[:40]!r}... is not a serialized "
                         f"Summary ({err})") from err


class FileWriter:
    """TensorFlow's ``tf.summary.FileWriter``: events for TensorBoard in
    ``<logdir>/events.out.tfevents.<seconds>.<hostname><filename_suffix>``, written with the
    ``tensorboard`` package's protos and record writer.

    Events wait in memory until ``max_queue`` are waiting, ``flush_secs`` have passed since the
    last write when one is added, :meth:`flush` or :meth:`close`.  After ``close`` events are
    dropped until :meth:`reopen`, which starts a new file.  ``graph`` (a ``tf.Graph``, such as
    ``sess.graph``) or ``graph_def`` is written first when given.  A ``logdir`` that cannot be
    made or written is a ``tf.errors`` error naming it.
    """

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
                 filename_suffix=None) -> None:
        self._logdir, self._suffix = str(logdir), filename_suffix or ""
        self._max_queue, self._flush_secs = max_queue, flush_secs
        self._closed, self._run_tags, self._seen_tags = True, set(), set()
        self.reopen()
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)

    def get_logdir(self) -> str:
        """The directory the event files go to."""
        return self._logdir

    def reopen(self) -> None:
        """Start a new event file (after :meth:`close`); nothing when open."""
        if not self._closed:
            return
        self._writer = events.open_event_file(self._logdir, self._suffix)
        self._closed, self._queue, self._last = False, [], time.time()
        self.add_event(events.event(file_version="brain.Event:2"))
        self.flush()

    def add_event(self, event) -> None:
        """Write an ``Event`` protobuf (or its serialized bytes)."""
        if self._closed:
            return
        self._queue.append(event if isinstance(event, bytes) else events.serialize(event))
        if len(self._queue) >= self._max_queue or time.time() - self._last >= self._flush_secs:
            self.flush()

    def add_summary(self, summary, global_step=None) -> None:
        """Write a ``Summary``: the bytes a summary op gives, or a ``Summary`` protobuf.  As
        TensorFlow's, a plugin's metadata (the text dashboard's) is kept only on a tag's first
        value."""
        summary = _summary_proto(summary)
        for value in summary.value:
            if value.HasField("metadata"):
                if value.tag in self._seen_tags:
                    value.ClearField("metadata")
                self._seen_tags.add(value.tag)
        self.add_event(events.event(global_step, summary=summary))

    def add_session_log(self, session_log, global_step=None) -> None:
        """Write a ``SessionLog`` (START, STOP, CHECKPOINT: TensorBoard drops the events a
        restarted run wrote past its START step)."""
        self.add_event(events.event(global_step, session_log=session_log))

    def add_graph(self, graph, global_step=None, graph_def=None) -> None:
        """Write ``graph`` (a ``tf.Graph``) as a GraphDef for TensorBoard's graph dashboard
        (see ``_graph_def``), or ``graph_def`` (a GraphDef protobuf or its bytes) as it is."""
        if graph_def is None:
            graph_def = _graph_def(graph)
        data = graph_def if isinstance(graph_def, bytes) else events.serialize(graph_def)
        self.add_event(events.event(global_step, graph_def=data))

    def add_run_metadata(self, run_metadata, tag, global_step=None) -> None:
        """Write a traced run's ``tf.RunMetadata`` (or a RunMetadata protobuf) under ``tag``
        (each tag once): TensorBoard's graph dashboard shows each op's compute time."""
        if tag in self._run_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._run_tags.add(tag)
        tagged = events.proto("event_pb2").TaggedRunMetadata(
            tag=tag, run_metadata=run_metadata.SerializeToString())
        self.add_event(events.event(global_step, tagged_run_metadata=tagged))

    def flush(self) -> None:
        """Write the waiting events to disk.  An OSError (a full disk) names the event file;
        the waiting events are dropped and the file closed (:meth:`close` then does nothing,
        :meth:`reopen` starts a new file)."""
        if not self._closed:
            try:
                for record in self._queue:
                    self._writer.write(record)
                self._writer.flush()
            except OSError as err:
                self._abandon()
                raise OSError(err.errno, f"FileWriter cannot write its event file "
                              f"({err.strerror or err}); its waiting events were dropped and "
                              f"the file closed", self._path()) from err
            self._queue, self._last = [], time.time()

    def _path(self) -> str:
        return str(getattr(getattr(self._writer, "_writer", None), "name", self._logdir))

    def _abandon(self):
        """Close after a failed write: closing flushes what is buffered, which fails again."""
        self._closed, self._queue = True, []
        with contextlib.suppress(OSError):
            self._writer.close()

    def close(self) -> None:
        """Flush and close the file."""
        self.flush()
        if not self._closed:
            self._writer.close()
            self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# TensorFlow's protocol buffers, as tf.summary.Summary (and tf.Summary) name them: loaded with
# the tensorboard package on first use
_PROTOS = {"Summary": "summary_pb2", "SummaryDescription": "summary_pb2",
           "Event": "event_pb2", "SessionLog": "event_pb2", "TaggedRunMetadata": "event_pb2"}


def __getattr__(name):
    if name in _PROTOS:
        return getattr(events.proto(_PROTOS[name]), name)
    if name == "FileWriterCache":  # the hooks' cache (they import this module: loaded by name)
        return importlib.import_module(f"{__package__}.session_run_hooks").SummaryWriterCache
    raise AttributeError(f"tf.summary.{name} is not supported by TinyFlow")
