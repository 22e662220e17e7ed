"""``ctc_beam_search_decoder``: TensorFlow's CTCBeamSearchDecoder, computed in Python when it
runs (FPythonCompute), step for step as TF's ``ctc_beam_search.h`` with its default scorer: at
each time step every beam (a label sequence, a tree node) updates its probabilities of ending
in a blank and in its label from the log-softmax of the logits, then the beams branch into one
child per non-blank class, a child kept while fewer than ``beam_width`` beams are held or when
more likely than the least likely one (which then leaves the beam).  Outputs with shapes known
at bind: the ``top_paths`` best sequences ``[top_paths, batch, max_time]`` (int64, padded with
-1) and their log probabilities ``[batch, top_paths]``; ``tf.nn.ctc_beam_search_decoder`` makes
them TF's SparseTensors.  Children are made as they first enter the beam, and the beams made are
counted against the host's memory (ResourceExhaustedError past it: a document's beam_width may
be any int)."""
from __future__ import annotations

import heapq
import math

import numpy as np

from ..nnvm import host_memory
from ..nnvm.attrs import no_gradient, shape_str
from ..nnvm.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    ResourceExhaustedError,
    ShapeError,
)
from ..nnvm.op import register_op

__all__ = ["beam_search"]

_ZERO = -math.inf  # log(0)
_BEAM_BYTES = 400  # a _Beam, its lists and a heap entry, about


def _log_sum_exp(a: float, b: float) -> float:
    if a == _ZERO:
        return b
    if b == _ZERO:
        return a
    return max(a, b) + math.log1p(math.exp(-abs(a - b)))


class _Beam:
    """A label sequence: its last label, its parent, its children once it branched, and its
    log probabilities (total, ending in a blank, ending in its label) before and at the step."""
    __slots__ = ("children", "label", "new", "old", "parent")

    def __init__(self, parent, label):
        self.parent, self.label, self.children = parent, label, {}
        self.old, self.new = [_ZERO] * 3, [_ZERO] * 3

    def labels(self, merge_repeated: bool) -> list:
        out, previous, beam = [], -1, self
        while beam.parent is not None:  # TF's LabelSeq
            if not merge_repeated or beam.label != previous:
                out.append(beam.label)
            previous, beam = beam.label, beam.parent
        return out[::-1]


class _Leaves:
    """The beams held, as TF's TopN: a min-heap on the total at the step (fixed once pushed);
    ``room``: how many more beams the host's memory allows the search to make."""

    def __init__(self, width, room):
        self.width, self.heap, self.count, self.room = width, [], 0, room

    def make(self, parent, label):
        """A new child beam, counted against the room left (a document's beam_width may be
        any int: the beams made, not that width, are what memory holds)."""
        self.room -= 1
        if self.room < 0:
            raise MemoryError
        child = parent.children[label] = _Beam(parent, label)
        return child

    def push(self, beam):
        self.count += 1
        heapq.heappush(self.heap, (beam.new[0], self.count, beam))

    def candidate(self, total):
        return total > _ZERO and (len(self.heap) < self.width or total > self.heap[0][0])

    def sorted(self):
        return [entry[2] for entry in sorted(self.heap, key=lambda e: (-e[0], e[1]))]


def _step(leaves, row, blank):
    """One time step of TF's CTCBeamSearchDecoder::Step; the new leaves."""
    row = row - row.max()
    logp_array = (row - np.log(np.exp(row).sum())).astype(np.float64)  # float32, as TF's
    logp = logp_array.tolist()
    branches = leaves.sorted()
    leaves = _Leaves(leaves.width, leaves.room)
    for beam in branches:
        beam.old = list(beam.new)
    for beam in branches:
        if beam.parent is not None:
            if beam.parent.new[0] != _ZERO:  # the parent is still in the beam
                parent = beam.parent.old
                previous = parent[1] if beam.label == beam.parent.label else parent[0]
                beam.new[2] = _log_sum_exp(beam.new[2], previous)
            beam.new[2] += logp[beam.label]
        beam.new[1] = beam.old[0] + logp[blank]
        beam.new[0] = _log_sum_exp(beam.new[1], beam.new[2])
        leaves.push(beam)
    every_label = np.arange(blank)
    for beam in branches:
        if not leaves.candidate(beam.old[0]):
            continue
        totals = logp_array[:blank] + beam.old[0]  # each child's, as it would enter the beam
        if 0 <= beam.label < blank:  # a repeat follows a blank only
            totals[beam.label] = logp_array[beam.label] + beam.old[1]
        # a full beam's least total only grows: a child below it now never enters, and one
        # never made needs no visit (TF would make it, then reset it)
        labels = every_label if len(leaves.heap) < leaves.width else np.flatnonzero(
            totals > leaves.heap[0][0])
        totals = totals.tolist()
        for label in sorted(set(labels.tolist()).union(beam.children)):  # TF's order
            child = beam.children.get(label)  # TF's children, made as they are first needed
            if child is not None and child.new[0] != _ZERO:  # already a beam
                continue
            if leaves.candidate(totals[label]):
                if child is None:
                    child = leaves.make(beam, label)
                child.new = [totals[label], _ZERO, totals[label]]
                if len(leaves.heap) == leaves.width:  # the least likely leaves the beam
                    heapq.heappop(leaves.heap)[2].new = [_ZERO] * 3
                leaves.push(child)
            elif child is not None:  # left out: as TF, it branches no more this step
                child.old, child.new = [_ZERO] * 3, [_ZERO] * 3
    return leaves


def beam_search(logits, length, beam_width, top_paths, merge_repeated, room=10 ** 7):
    """``(paths, log_probs)`` of one example: ``logits`` ``[time, classes]`` (the last class
    the blank) read for ``length`` steps; None when fewer than ``top_paths`` beams remain.
    MemoryError once it would make more than ``room`` beams."""
    root = _Beam(None, -1)
    root.new = [0.0, 0.0, _ZERO]
    leaves = _Leaves(beam_width, room)
    leaves.push(root)
    for row in logits[:length]:
        leaves = _step(leaves, row.astype(np.float32), logits.shape[1] - 1)
    best = leaves.sorted()
    if len(best) < top_paths:
        return None
    return ([beam.labels(merge_repeated) for beam in best[:top_paths]],
            [beam.new[0] for beam in best[:top_paths]])


def _decode(node, inputs):
    """FPythonCompute: every example's best paths, padded with -1, and log probabilities."""
    logits, lengths = np.asarray(inputs[0]), np.asarray(inputs[1])
    _decoder_shape(node.attrs, [None, None], [None, None])  # the attributes checked
    width, top = node.attrs["beam_width"], node.attrs["top_paths"]
    where = f"{node.describe()}: "
    if top > width:
        raise InvalidArgumentError(None, node.name, where + "requested more paths than the "
                                   "beam width.")
    time, batch = logits.shape[:2]
    available, source = host_memory.host_available_bytes()
    paths = np.full((top, batch, time), -1, np.int64)
    log_probs = np.zeros((batch, top), np.float32)
    for b in range(batch):
        if not 0 <= lengths[b] <= time:
            raise FailedPreconditionError(None, node.name, where + f"sequence_length({b}) <= "
                                          f"{time}")
        try:
            result = beam_search(logits[:, b], int(lengths[b]), width, top,
                                 node.attrs.get("merge_repeated", True), available // _BEAM_BYTES)
        except MemoryError:
            raise ResourceExhaustedError(f"{node.describe()}: the beams of width {width} over "
                                         f"{lengths[b]} steps need more than the {available} "
                                         f"bytes available ({source})", node) from None
        if result is None:
            raise InvalidArgumentError(None, node.name, where + "Less leaves in the beam "
                                       "search than requested.")
        found, log_probs[b] = result
        for p, labels in enumerate(found):
            paths[p, b, :len(labels)] = labels
    return [paths, log_probs]


def _decoder_shape(attrs, in_shapes, out_shapes):
    """The attributes checked (a graph document's too), then the outputs' shapes."""
    for key in ("beam_width", "top_paths"):
        value = attrs.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ShapeError(f"ctc_beam_search_decoder: attr {key} must be an int >= 1, got "
                             f"{value!r}")
    logits, lengths = in_shapes
    if logits is not None and (len(logits) != 3 or logits[2] < 1):
        raise ShapeError(f"ctc_beam_search_decoder: logits must be [max_time, batch, "
                         f"num_classes], got {shape_str(logits)}")
    if lengths is not None and len(lengths) != 1:
        raise ShapeError(f"ctc_beam_search_decoder: sequence_length must be a vector, got "
                         f"{shape_str(lengths)}")
    if logits is None:
        return in_shapes, out_shapes
    if lengths is not None and lengths[0] != logits[1]:
        raise ShapeError(f"ctc_beam_search_decoder: sequence_length {shape_str(lengths)} "
                         f"against a batch of {logits[1]}")
    top = attrs["top_paths"]
    return [logits, (logits[1],)], [(top, logits[1], logits[0]), (logits[1], top)]


# TF: ops.NotDifferentiable("CTCBeamSearchDecoder")
(register_op("ctc_beam_search_decoder")
 .describe("TF's CTCBeamSearchDecoder on logits [max_time, batch, num_classes] (the last class "
           "the blank) and sequence lengths (int32): output 0 the top_paths best label "
           "sequences [top_paths, batch, max_time] (int64, -1 after each), output 1 their log "
           "probabilities [batch, top_paths]; attrs beam_width, top_paths, merge_repeated.")
 .set_num_inputs(2).set_num_outputs(2)
 .set_attr("FInferShape", _decoder_shape)
 .set_attr("FInferType", lambda attrs, in_types, out_types: (
     [in_types[0] or "float32", "int32"], ["int64", in_types[0] or "float32"]))
 .set_attr("FPythonCompute", _decode).set_attr("TTFType", "CTCBeamSearchDecoder")
 .set_attr("FGradient", no_gradient))
