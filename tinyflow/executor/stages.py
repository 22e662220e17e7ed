"""Shapes known only at run time: a graph bound in stages.

An op whose output's shape comes from data (``tf.where(c)``, ``tf.boolean_mask``, a loop
variable whose shape_invariants let it vary) declares it with ``TShapeAtRunTime``: its
FInferShape leaves that output unknown, its body resizes the output, a tensor of its own.  When
ops of the graph read such an output, :func:`bind_executor` binds the graph in stages:

1. *stage 1*: every node not downstream of such an output, as one executor, its
   outputs the fetches among them, the run-time-shaped outputs and every entry a later node
   reads (the *boundary*);
2. after stage 1 ran, the actual shapes of the run-time-shaped outputs are read and the rest
   of the graph is bound at them (one executor per shapes seen, cached, at most
   ``STAGE_CACHE_SIZE``): each boundary entry is read through an input node of its own, fed
   with stage 1's tensor, and the later nodes' control dependencies on stage-1 nodes are
   dropped, so nothing of stage 1 runs twice (random ops, assigns, ``tf.data`` pulls).  That
   graph may hold run-time-shaped outputs of its own: it is bound in stages again.

A shape argument whose value comes from data (``tf.zeros([n])`` with ``n`` fed,
``tf.range(tf.reduce_max(lengths))``: ValuesAtRunTime from FoldShapeArguments) splits the
graph the same way: stage 1 computes the value, and the later stage is bound per the values it
takes (and shapes), its input node for the value folded as a constant.

Both stages share the session's variables; a loop's backward in stage 2 reads the state its
forward kept in stage 1 (its input node stands for the forward's output).
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np
import torch

from ..nnvm.errors import ShapeError
from ..nnvm.graph import Graph, rewrite
from ..nnvm.passes.fold_shapes import NotFoldable, fold_value
from ..nnvm.symbol import Node, NodeEntry

__all__ = ["STAGE_CACHE_SIZE", "StagedBind", "StagedExecutor", "run_time_outputs"]

STAGE_CACHE_SIZE = 8  # shapes of the run-time-shaped outputs whose later stage is kept


class StagedBind(ShapeError):
    """Raised by a bind whose graph reads an output sized at run time, or a shape argument's
    value known only then: the graph (shapes and types inferred), those outputs' entry ids
    and the value entries (NodeEntry, ``values``), for ``bind_executor`` to bind in stages.
    Elsewhere (a loop's body, bound as an executor of its own) it is the ShapeError it says."""

    def __init__(self, graph, entries, variables, values=(), message=None):
        indexed = graph.indexed
        names = ", ".join(indexed.nodes[indexed.entry_node(e)[0]].describe() for e in entries)
        super().__init__(message or f"the shape of {names} is known only once it ran, and ops "
                         f"of this graph read it: a loop's body or a branch cannot bind in "
                         f"stages")
        self.graph, self.entries, self.values = graph, list(entries), list(values)
        self.read_variables, self.assigned_variables = variables  # the whole graph's


def run_time_outputs(graph, variables) -> tuple[Graph, frozenset]:
    """``(graph, names)``: the outputs an op's body sizes when it runs (TShapeAtRunTime, their
    shape unknown once the op's inputs' are known) bound as (0,), to get a tensor of their own
    (``names``: (node name, output)); :class:`StagedBind` when an op of the graph reads one
    (``variables``: the graph's ``(read, assigned)`` variables, checked already)."""
    indexed, shapes = graph.indexed, graph.attrs["shape"]
    late = [e for nid, node in enumerate(indexed.nodes)
            if node.op is not None and node.op.attr("TShapeAtRunTime")
            and all(shapes[i] is not None for i in indexed.input_entries[nid])
            for e in range(indexed.entry_rptr[nid], indexed.entry_rptr[nid]
                           + node.num_outputs()) if shapes[e] is None]
    if not late:
        return graph, frozenset()
    if set(late) & {e for entries in indexed.input_entries for e in entries}:
        raise StagedBind(graph, late, variables)
    names = frozenset((indexed.nodes[indexed.entry_node(e)[0]].name, indexed.entry_node(e)[1])
                      for e in late)
    return graph.with_attrs(shape=[(0,) if e in late else s for e, s in enumerate(shapes)]), names


def _static_values(graph, entries, inputs) -> dict:
    """``{entry: value}`` of the ``entries`` (NodeEntry) whose value follows from shapes,
    constants (FFoldValue) and the values ``inputs`` of input nodes: a later stage folds a
    shape argument through them."""
    shapes, indexed = graph.attrs["shape"], graph.indexed
    known = {}
    for entry in entries:
        try:
            known[entry] = fold_value(entry, lambda e: shapes[indexed.entry_id(e)], inputs)
        except NotFoldable:
            continue
    return known


def _later_nodes(indexed, entries) -> set:
    """Node ids downstream of ``entries`` (reading them, or one that does, or ordered after
    one by a control dependency)."""
    later = set()
    for nid, node in enumerate(indexed.nodes):  # execution order: inputs first
        if any(e in entries or indexed.entry_node(e)[0] in later
               for e in indexed.input_entries[nid]) or any(
                indexed.node_id[c] in later for c in node.control_deps):
            later.add(nid)
    return later


class StagedExecutor:
    """A graph bound in stages (module doc): stage 1 bound now, the rest per shapes at run.

    Same interface as :class:`~tinyflow.executor.Executor` for the session: ``allocate``,
    ``run``, ``free``, ``unstored_variables``, ``read_variables`` and ``assigned_variables``
    (the whole graph's), ``indexed``, ``loop_states`` (stage 1's).

    Attributes
    ----------
    first : Executor
        Stage 1.
    later : OrderedDict
        ``{shapes of the run-time-shaped outputs: executor}`` of the later stages bound so
        far, least recently used first.
    run_time_names : list of str
        The run-time-shaped outputs, named.
    """

    def __init__(self, split, feed_shapes, variables, options, bind, input_values=None):
        graph, entries = split.graph, split.entries
        self.input_values = dict(input_values or {})  # known to every stage (an outer one's)
        indexed, dtypes = graph.indexed, graph.attrs["dtype"]
        self.graph, self.indexed, self.options, self.bind = graph, indexed, options, bind
        self.feed_shapes = dict(feed_shapes)
        values = [indexed.entry_id(e) for e in split.values]
        later = _later_nodes(indexed, set(entries) | set(values))
        entries = [e for e in entries if indexed.entry_node(e)[0] not in later]
        values = [e for e in values if indexed.entry_node(e)[0] not in later]
        # stage 1's outputs: the fetches before, the run-time-shaped ones, what stage 2 reads
        boundary = [e for nid in sorted(later) for e in indexed.input_entries[nid]
                    if indexed.entry_node(e)[0] not in later
                    and indexed.nodes[indexed.entry_node(e)[0]].op is not None]
        after = [indexed.nodes[indexed.entry_node(e)[0]] for e in entries]
        controls = [NodeEntry(c, 0) for nid in later for c in indexed.nodes[nid].control_deps
                    if indexed.node_id[c] not in later]
        self.run_time = [self._entry(e) for e in entries]
        self.run_time_names = [n.describe() for n in after]
        self.by_value = [self._entry(e) for e in values]  # their values key a later stage
        self.boundary = {self._entry(e): None for e in boundary + list(entries) + values}
        self.static = _static_values(graph, self.boundary, self.input_values)  # folded once
        for entry in self.boundary:
            self.boundary[entry] = Node(
                None, f"{entry.node.name}:{entry.index}",
                {"kind": "placeholder", "fed_tensor": True, "shape": None,
                 "dtype": dtypes[indexed.entry_id((indexed.node_id[entry.node], entry.index))]},
                source=entry.node.source, graph=entry.node.graph)
        self.outputs = outputs = [self._entry(e) for e in indexed.outputs]
        self.in_first = [indexed.entry_node(e)[0] not in later for e in indexed.outputs]
        first_outputs = list(dict.fromkeys(
            [o for o, first in zip(outputs, self.in_first) if first]
            + list(self.boundary) + controls))
        self.first = bind(first_outputs, feed_shapes, variables, options,
                          input_values=self.input_values)
        self.loop_states = self.first.loop_states
        self.read_variables = set(split.read_variables)
        self.assigned_variables = set(split.assigned_variables)
        self.first_outputs = first_outputs
        self.second_outputs = self._cut(graph, later, [o for o, first in zip(
            outputs, self.in_first) if not first])
        self.later = OrderedDict()
        # a loop's backward bound later reads what its forward keeps from the first run on
        self.recorded = {node.inputs[node.op.attr("TStateOfInput")].node.name
                         for node in (indexed.nodes[nid] for nid in later)
                         if node.op.attr("TStateOfInput") is not None}

    def _entry(self, eid) -> NodeEntry:
        nid, index = self.indexed.entry_node(eid)
        return NodeEntry(self.indexed.nodes[nid], index)

    def _cut(self, graph, later, outputs) -> list:
        """``outputs`` (of later nodes) as a graph reading each boundary entry through its
        input node, without control dependencies on stage-1 nodes."""
        indexed, fed = graph.indexed, self.boundary
        later_nodes = {indexed.nodes[nid] for nid in later}

        def read_fed(node):
            if node not in later_nodes:
                return None
            return ([NodeEntry(fed[e], 0) if e in fed else e for e in node.inputs],
                    [c for c in node.control_deps if c in later_nodes])
        return rewrite(Graph(outputs), read_fed, carried=()).outputs

    def unstored_variables(self, variables) -> dict:
        """Stage 1's (a later stage makes its own when it is bound)."""
        return self.first.unstored_variables(variables)

    def allocate(self, variables) -> None:
        self.store = variables
        self.first.allocate(variables)
        for node, state in self.first.loop_states.items():
            if node.name in self.recorded:
                state.table.record = True

    def _bind_later(self, shapes, values):
        """The later stage for these shapes of the run-time-shaped outputs and ``values`` of
        the shape arguments' (bound now)."""
        store = self.store
        feed_shapes = {**self.feed_shapes, **{node: shapes[entry]
                                              for entry, node in self.boundary.items()}}
        known = {**self.input_values,
                 **{self.boundary[e]: v for e, v in {**self.static, **values}.items()}}
        executor = self.bind(self.second_outputs, feed_shapes, store, self.options,
                             input_values=known)
        states = {node.name: state for node, state in self.first.loop_states.items()}
        for entry, node in self.boundary.items():  # a loop's backward reads its forward's
            if entry.node.name in states:
                executor.loop_states[node] = states[entry.node.name]
        executor.loop_states.update(  # and those an earlier stage ran, read as inputs here
            (node, state) for node, state in self.first.loop_states.items() if node.op is None)
        created = store.create(executor.unstored_variables(store), self.first.device)
        try:
            executor.allocate(store)
        except BaseException:
            store.discard(created)
            raise
        return executor

    def run(self, feeds, profile=None, trace=None, timeout_ms=0):
        """Stage 1, then the later stage bound at the shapes stage 1 gave; the outputs."""
        ran = dict(zip(self.first_outputs, self.first.run(feeds, profile, trace, timeout_ms)))
        shapes = {entry: tuple(ran[entry].shape) for entry in self.boundary}
        values = {e: np.asarray(ran[e].cpu() if isinstance(ran[e], torch.Tensor) else ran[e])
                  for e in self.by_value}
        key = tuple(shapes[e] for e in self.run_time) + tuple(
            (v.dtype.str, v.shape, v.tobytes()) for v in values.values())
        executor = self.later.get(key)
        if executor is None:
            executor = self.later[key] = self._bind_later(shapes, values)
            while len(self.later) > STAGE_CACHE_SIZE:
                self.later.popitem(last=False)[1].free()
        self.later.move_to_end(key)
        fed = {**feeds, **{node: ran[entry] for entry, node in self.boundary.items()}}
        second = iter(executor.run(fed, profile, trace, timeout_ms))
        return [ran[o] if first else next(second) for o, first in zip(self.outputs,
                                                                       self.in_first)]

    def free(self) -> None:
        self.first.free()
        for executor in self.later.values():
            executor.free()
        self.later.clear()
