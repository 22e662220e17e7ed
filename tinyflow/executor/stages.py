"""Shapes known only at run time: a graph bound in stages.

An op whose output's shape comes from data (``tf.where(c)``, ``tf.boolean_mask``, a loop
variable whose shape_invariants let it vary) declares it with ``TShapeAtRunTime``: its
FInferShape leaves that output unknown, its body resizes the output, a tensor of its own.  When
ops of the graph read such an output, :func:`bind_executor` binds the graph in stages:

1. *stage 1*: every node not downstream of such an output, as one :class:`Executor`, its
   outputs the fetches among them, the run-time-shaped outputs and every entry a later node
   reads (the *boundary*);
2. after stage 1 ran, the actual shapes of the run-time-shaped outputs are read and the rest
   of the graph is bound at them (one executor per shapes seen, cached, at most
   ``STAGE_CACHE_SIZE``): each boundary entry is read through an input node of its own, fed
   with stage 1's tensor, and the later nodes' control dependencies on stage-1 nodes are
   dropped, so nothing of stage 1 runs twice (random ops, assigns, ``tf.data`` pulls).  That
   graph may hold run-time-shaped outputs of its own: it is bound in stages again.

Both stages share the session's variables; a loop's backward in stage 2 reads the state its
forward kept in stage 1 (its input node stands for the forward's output).
"""
from __future__ import annotations

from collections import OrderedDict

from ..nnvm.graph import Graph, rewrite
from ..nnvm.symbol import Node, NodeEntry
from .executor import Executor, StagedBind

__all__ = ["STAGE_CACHE_SIZE", "StagedExecutor", "bind_executor"]

STAGE_CACHE_SIZE = 8  # shapes of the run-time-shaped outputs whose later stage is kept


def bind_executor(outputs, feed_shapes, variables, options, fed_entries=None):
    """An :class:`Executor` for ``outputs``, or a :class:`StagedExecutor` when ops of the graph
    read an output whose shape is known only once it ran (same arguments as Executor)."""
    try:
        return Executor(outputs, feed_shapes, variables, options, fed_entries)
    except StagedBind as split:
        return StagedExecutor(split.graph, split.entries, feed_shapes, variables, options)


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

    Same interface as :class:`Executor` for the session: ``allocate``, ``run``, ``free``,
    ``unstored_variables``, ``read_variables``, ``assigned_variables``, ``indexed``.

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

    def __init__(self, graph, entries, feed_shapes, variables, options):
        indexed, dtypes = graph.indexed, graph.attrs["dtype"]
        self.graph, self.indexed, self.options = graph, indexed, options
        self.feed_shapes = dict(feed_shapes)
        later = _later_nodes(indexed, set(entries))
        entries = [e for e in entries if indexed.entry_node(e)[0] not in later]
        self.read_variables, self.assigned_variables = Executor._variable_use(indexed)
        variables.check_initialized(self.read_variables)
        # stage 1's outputs: the fetches before, the run-time-shaped ones, what stage 2 reads
        boundary = [e for nid in sorted(later) for e in indexed.input_entries[nid]
                    if indexed.entry_node(e)[0] not in later
                    and indexed.nodes[indexed.entry_node(e)[0]].op is not None]
        after = [indexed.nodes[indexed.entry_node(e)[0]] for e in entries]
        controls = [NodeEntry(c, 0) for nid in later for c in indexed.nodes[nid].control_deps
                    if indexed.node_id[c] not in later]
        self.run_time = [self._entry(e) for e in entries]
        self.run_time_names = [n.describe() for n in after]
        self.boundary = {self._entry(e): None for e in boundary + list(entries)}
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
        self.first = Executor(first_outputs, feed_shapes, variables, options)
        self.first_outputs = first_outputs
        self.second_outputs = self._cut(graph, later, [o for o, first in zip(
            outputs, self.in_first) if not first])
        self.later = OrderedDict()

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

    def _bind_later(self, shapes):
        """The later stage for these shapes of the run-time-shaped outputs (bound now)."""
        store = self.store
        feed_shapes = {**self.feed_shapes, **{node: shapes[entry]
                                              for entry, node in self.boundary.items()}}
        executor = bind_executor(self.second_outputs, feed_shapes, store, self.options)
        for entry, node in self.boundary.items():  # a loop's backward reads its forward's
            state = self.first.loop_states.get(entry.node)
            if state is not None and isinstance(executor, Executor):
                executor.loop_states[node] = state
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
        key = tuple(shapes[e] for e in self.run_time)
        executor = self.later.get(key)
        if executor is None:
            executor = self.later[key] = self._bind_later(shapes)
            while len(self.later) > STAGE_CACHE_SIZE:
                self.later.popitem(last=False)[1].free()
        self.later.move_to_end(key)
        fed = {**feeds, **{node: ran[entry] for entry, node in self.boundary.items()}}
        second = iter(executor.run(fed, profile, trace, timeout_ms))
        # the assigns a later stage ran count too (the session marks them)
        self.assigned_variables = self.assigned_variables | executor.assigned_variables
        return [ran[o] if first else next(second) for o, first in zip(self.outputs,
                                                                       self.in_first)]

    def free(self) -> None:
        self.first.free()
        for executor in self.later.values():
            executor.free()
        self.later.clear()
