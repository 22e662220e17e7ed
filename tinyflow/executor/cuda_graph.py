"""The planned step as CUDA graphs (``Session(config='gpu graph')``; docs/fusion.md).

A static memory plan fixes every buffer's address, which is what a CUDA graph needs: a step's
kernels are recorded once (``torch.cuda.graph``) and replayed, one launch per segment.  An op
that cannot be recorded (a Python op, a host sync, a collective, a seeded random op:
``TUncapturable``, set where the op is registered) runs alone between the captured segments.

The first run of an executor is a plain one on a side stream (the warm-up torch.cuda.graph
asks for: lazy initialisation, cuBLAS handles); the second captures each segment and replays
it; later runs replay.  Feeds go through pinned host buffers with non-blocking copies.
Without CUDA (``"cpu graph"``) the segments run as plain closures, so the segmentation can be
tested on any machine.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch

from ..lua_ops.runtime import LuaOpError, lua_table, run_closures

__all__ = ["GraphedStep", "Segment", "capturable", "segments"]


class Segment(NamedTuple):
    """Closures ``start`` to ``stop - 1`` of a step, captured as one graph when ``captured``."""

    start: int
    stop: int
    captured: bool


def capturable(node) -> bool:
    """Whether a CUDA graph can record ``node``'s closure: not a Python op, not declared
    ``TUncapturable``, no random generator of its own (a seeded random op), not guarded (a
    tf.cond branch's op: whether it runs is read on the host)."""
    op = node.op
    return not (op.attr("FPythonCompute") is not None and op.attr("FLuaCompute") is None
                or op.attr("TUncapturable", False) or node.attrs.get("seed") is not None
                or node.guards())


def segments(nodes) -> list[Segment]:
    """The step's closures (one per node of ``nodes``, in order) cut into segments: maximal
    runs of capturable nodes, and each uncapturable node alone."""
    found, start = [], 0
    for i, node in enumerate(nodes):
        if not capturable(node):
            if i > start:
                found.append(Segment(start, i, True))
            found.append(Segment(i, i + 1, False))
            start = i + 1
    if len(nodes) > start:
        found.append(Segment(start, len(nodes), True))
    return found


class GraphedStep:
    """An executor's step as segments (``segments``), captured on CUDA (the module's doc);
    ``captures`` and ``replays`` count graphs captured and replayed (0 without CUDA)."""

    def __init__(self, executor):
        self.executor = executor
        self.segments = segments([executor.indexed.nodes[n] for n in executor.op_nodes])
        self.lua_segments = [lua_table(executor.closures[s.start:s.stop]) for s in self.segments]
        self.graphs = [None] * len(self.segments)
        self.on_cuda = executor.device.type == "cuda"
        self.runs = self.captures = self.replays = 0
        self.staging, self.copied = {}, None  # pinned feed buffers, the event of their copy

    def copy_feeds(self, feeds: dict) -> None:
        """Copy ``feeds`` ({placeholder node: tensor or array}) into the executor's buffers:
        on CUDA through pinned host memory, without waiting for the copy."""
        buffers = self.executor.feed_buffers
        if not self.on_cuda:
            for node, value in feeds.items():
                buffers[node].copy_(value)
            return
        if self.copied is not None:
            self.copied.synchronize()  # the last run's copies have read the pinned buffers
        for node, value in feeds.items():
            if node not in self.staging:
                self.staging[node] = torch.empty(buffers[node].shape, dtype=buffers[node].dtype,
                                                 pin_memory=True)
            _copy_on_host(self.staging[node], torch.as_tensor(value))
            buffers[node].copy_(self.staging[node], non_blocking=True)
        self.copied = torch.cuda.Event()
        self.copied.record()

    def run(self):
        """Run the step: 0, or ``(index, error)`` of the first failing closure (1-based in the
        whole step), as :func:`~tinyflow.lua_ops.runtime.run_closures`."""
        if self.on_cuda and self.runs == 0:  # the warm-up, on a side stream as capture asks
            side, main = torch.cuda.Stream(), torch.cuda.current_stream()
            side.wait_stream(main)  # the feeds' copies
            with torch.cuda.stream(side):
                failed = run_closures(self.executor.lua_closures, len(self.executor.closures))
            main.wait_stream(side)  # before the results are read, or the next run
            self.runs += not failed
            return failed
        for i, segment in enumerate(self.segments):
            if segment.captured and self.on_cuda and self.graphs[i] is None:
                self._capture(i)
            if self.graphs[i] is not None:
                self.graphs[i].replay()
                self.replays += 1
                continue
            failed = run_closures(self.lua_segments[i], segment.stop - segment.start)
            if failed:
                return segment.start + failed[0], failed[1]
        self.runs += 1
        return 0

    def _capture(self, i):
        segment, graph, failed = self.segments[i], torch.cuda.CUDAGraph(), None
        torch.cuda.synchronize()
        try:  # a host sync inside invalidates the capture: its end raises too
            with torch.cuda.graph(graph):
                failed = run_closures(self.lua_segments[i], segment.stop - segment.start)
        except RuntimeError as err:
            failed = failed or (1, f"{type(err).__name__}: {err}")
        if failed:
            node = self.executor.indexed.nodes[self.executor.op_nodes[segment.start +
                                                                      failed[0] - 1]]
            raise LuaOpError(f"{node.describe()} failed while being captured in a CUDA graph "
                             f"({failed[1]}): if it syncs with the host, declare its op "
                             f"TUncapturable where it is registered (tinyflow/nnvm/attrs.py)")
        self.graphs[i] = graph
        self.captures += 1


def _copy_on_host(staged, value):
    """``staged[...] = value``: by numpy's one-thread copy where it can (torch's CPU copy runs on
    its OpenMP team: 4-6 ms of a 0.5 ms step for LeNet's 313 KB batch on a 16-core GPU host)."""
    if value.device.type == "cpu" and value.dtype == staged.dtype != torch.bfloat16:
        np.copyto(staged.numpy(), value.numpy())
    else:
        staged.copy_(value)
