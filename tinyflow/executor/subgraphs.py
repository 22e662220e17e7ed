"""Nodes holding subgraphs (a loop's cond and body, ``TSubgraphs``): each subgraph bound as an
executor of its own, nested in the node's closure.

When the outer executor makes the closure of such a node, :func:`subgraph_kwargs` binds every
subgraph the op names, at the shapes and dtypes of the node's inputs (a subgraph's inputs are
the node's, by position): its own passes, its own static memory plan, allocated once and
reused every iteration, its own closures.  The node's Lua body gets, per subgraph, the table
``{closures, count, names, inputs, outputs}``: the closures to call in order (``names``: each
one's node, for errors), its input buffers by position (nil where it does not read that
input's values: not at all, or for its shape only) and its output tensors (nil where skipped:
TSkippableOutputs).  It also gets ``state``, a Lua table of its own, or, with
``TStateOfInput`` k, the one of the node computing its input k (a loop's backward reads the
loop variables its forward kept there).

With ``TKeep`` on such a reader (a loop's backward), the forward's body is bound with the
intermediates the reader's subgraph reads as extra outputs, kept per iteration in
``state.history`` after the loop variables; the reader's subgraph reads each through a
placeholder of its own (CutFeeds: the body's forward drops out of it), appended to its inputs,
its history index in ``kwarg.kept_at``.  Under a ``memory=`` policy it recomputes them.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from collections import OrderedDict

from ..lua_ops.runtime import lua_table
from ..nnvm.errors import BindError
from ..nnvm.passes.infer import DTYPE_SIZE
from ..nnvm.subgraph import Subgraph
from ..nnvm.symbol import Node

__all__ = ["BOUND_SHAPES", "LoopState", "subgraph_kwargs", "subgraph_variables"]

BOUND_SHAPES = 16  # shapes a loop whose variables change shape keeps its subgraphs bound at


@dataclasses.dataclass
class LoopState:
    """What the executor knows of one looping node: its Lua ``state`` table, the bytes one
    iteration keeps for the backward (0 when nothing reads them), its nested executors and
    the intermediates it keeps for a reader (``{body entry: (history index, shape, dtype)}``,
    TKeep)."""
    table: object
    bytes_per_iteration: int = 0
    executors: list = dataclasses.field(default_factory=list)
    kept: dict = dataclasses.field(default_factory=dict)
    needed: set = dataclasses.field(default_factory=set)  # the loop variables readers read
    # a loop whose variables change shape: its subgraphs' tables per shapes (at most
    # BOUND_SHAPES, least recently used dropped), and the shapes the body holds now
    bound: OrderedDict = dataclasses.field(default_factory=OrderedDict)
    last: tuple = ()

    @property
    def trips(self) -> int:
        """The iterations of the last run (0 before one)."""
        return int(self.table.trips or 0)


def subgraph_variables(node) -> tuple[set, set]:
    """``(read, written)``: the variable nodes the subgraphs of ``node`` (and those they nest)
    read, and those they assign."""
    read, written = set(), set()
    for name in (node.op.attr("TSubgraphs") or ()) if node.op is not None else ():
        for inner in _subgraph(node, name).nodes():
            for i, entry in enumerate(inner.inputs):
                if entry.node.op is None and entry.node.kind != "placeholder":
                    read.add(entry.node)
                    if i in inner.attr_list("FMutateInputs"):
                        written.add(entry.node)
            nested_read, nested_written = subgraph_variables(inner)
            read |= nested_read
            written |= nested_written
    return read, written


def subgraph_kwargs(executor, nid, variables) -> dict:
    """The attributes of node ``nid`` of ``executor`` as its body sees them: each subgraph
    replaced by its bound executor's table, and ``state`` (and ``kept_at``, TKeep).  A loop
    some of whose variables change shape (its run-time-shaped outputs; its backward's too)
    also gets ``varying`` (``{j = true}``) and ``bind_at``: its subgraphs bound at other
    shapes (below); it keeps no intermediates (its backward recomputes them)."""
    indexed, attrs = executor.indexed, executor.graph.attrs
    node = indexed.nodes[nid]
    shapes = [attrs["shape"][e] for e in indexed.input_entries[nid]]
    state = _state(executor, node, indexed)
    backward = node.op.attr("TStateOfInput") is not None
    if backward:  # its forward's
        varying = state.table.varying
    else:
        varying = [j + 1 for name, j in executor.run_time_shaped if name == node.name]
        varying = state.table.varying = lua_table(dict.fromkeys(varying, True)) \
            if varying else None
    # a backward of varying shapes binds at its first iteration's (bind_at), not its inputs'
    lazy = backward and varying is not None
    kwarg = {**node.attrs, **(dict.fromkeys(node.op.attr("TSubgraphs")) if lazy
                               else _bound(executor, node, shapes, variables, state))}
    kwarg["state"] = state.table
    if varying is not None:
        kwarg["varying"], state.last = varying, (None if lazy else tuple(shapes))
        kwarg["bind_at"] = functools.partial(_bind_at, executor, node, shapes, variables, state)
    elif backward:
        _keep_only_what_is_read(executor, node, kwarg)
    return kwarg


def _bound(executor, node, shapes, variables, state) -> dict:
    """``{subgraph name: table}`` (and ``kept_at``): each subgraph of ``node`` bound as an
    executor at the shapes of the node's inputs ``shapes`` (a subgraph's inputs are the node's,
    by position), without the outputs nothing reads (TSkippableOutputs), with the
    intermediates a reader wants kept (TKeep) as more outputs, and, for that reader, those
    intermediates fed instead of recomputed."""
    indexed = executor.indexed
    nid = indexed.node_id[node]
    donating, skippable = node.op.attr("TDonatedInputs"), node.op.attr("TSkippableOutputs")
    donated = donating(node.attrs) if donating is not None else {}
    skipped = skippable(node.attrs) if skippable is not None else {}
    unread = _unread_outputs(indexed, nid)
    kept = {} if state.table.varying else _kept_for_readers(executor, node)
    tables = {}
    for name in node.op.attr("TSubgraphs"):
        subgraph = _subgraph(node, name)
        feeds = {p: shape for p, shape in zip(subgraph.inputs, shapes)}
        fed, kept_at = _fed_kept(executor, node, name, feeds)
        if kept_at is not None:
            tables["kept_at"] = kept_at
        positions = [i for i in range(len(subgraph.outputs))
                     if i not in unread or i not in skipped.get(name, ())]
        positions += range(len(subgraph.outputs), len(subgraph.outputs) + len(kept.get(name, ())))
        outputs = list(subgraph.outputs) + kept.get(name, [])
        inner = type(executor)([outputs[i] for i in positions], feeds, variables,
                               dataclasses.replace(executor.options, graph=False),
                               fed_entries=fed,
                               donated=[subgraph.inputs[i] for i in donated.get(name, ())])
        inner.allocate(variables)
        state.executors.append(inner)
        if name in kept:
            _record_kept(state, inner, len(subgraph.outputs), kept[name])
        read, inputs = _values_read(inner), list(subgraph.inputs) + list(fed.values())
        tables[name] = lua_table({
            "closures": inner.lua_closures, "count": len(inner.closures),
            "names": lua_table([inner.indexed.nodes[i].describe() for i in inner.op_nodes]),
            "inputs": lua_table({i + 1: inner.feed_buffers[p] for i, p in enumerate(inputs)
                                 if p in read}),
            "outputs": lua_table({i + 1: t for i, t in zip(positions, inner.output_tensors)})})
    return tables


def _bind_at(executor, node, shapes, variables, state, values, gradients=None):
    """``kwarg.bind_at(values[, gradients])`` of a loop whose variables change shape: its
    subgraphs' tables bound at the shapes of ``values`` (Lua array of the loop variables) and,
    for a backward, ``gradients`` (theirs), the captured tensors keeping theirs; cached per
    shapes.  Nil when the last call had these shapes (the tables the body holds fit)."""
    n, start = node.attrs["num_vars"], node.attrs["num_vars"] + node.attrs["num_captured"]
    at = list(shapes)
    at[:n] = [tuple(values[j].shape) for j in range(1, n + 1)]
    if gradients is not None:
        at[start:start + n] = [tuple(gradients[j].shape) for j in range(1, n + 1)]
    key = tuple(at)
    if key == state.last:
        return None
    state.last = key
    if key not in state.bound:
        state.bound[key] = (lua_table(_bound(executor, node, at, variables, state)),
                            state.executors[-len(node.op.attr("TSubgraphs")):])
        while len(state.bound) > BOUND_SHAPES:  # never the one the body holds: the last
            for inner in state.bound.popitem(last=False)[1][1]:
                state.executors.remove(inner)
                inner.free()
    state.bound.move_to_end(key)
    return state.bound[key][0]


def _unread_outputs(indexed, nid) -> set:
    """The positions of node ``nid``'s outputs that no node reads nor the graph gives out."""
    first = indexed.entry_rptr[nid]
    read = set(indexed.outputs).union(*indexed.input_entries)
    return {i for i in range(indexed.nodes[nid].num_outputs()) if first + i not in read}


def _values_read(inner) -> set:
    """The placeholders of ``inner`` whose values it reads: those its ops read other than for
    their shapes (FIgnoreInputs), and those it gives out as they are (a loop's variable the
    body returns unchanged).  The others' buffers need no copy in before a run."""
    indexed = inner.indexed
    read = {indexed.nodes[indexed.entry_node(e)[0]] for e in indexed.outputs}
    for node in indexed.nodes:
        if node.op is not None:
            ignored = node.attr_list("FIgnoreInputs")
            read.update(e.node for i, e in enumerate(node.inputs) if i not in ignored)
    return {p for p in read if p in inner.feed_buffers}


def _kept_for_readers(executor, node) -> dict:
    """``{subgraph name: [entry, ...]}``: the entries of ``node``'s subgraphs that the nodes
    reading its state want kept (TKeep); under a ``memory=`` policy, which recomputes, only
    random ops' (TRandom: a draw again would be another)."""
    kept, recompute = {}, executor.options.memory_policy is not None
    if node.op.attr("TStateOfInput") is not None:
        return kept
    for reader in executor.indexed.nodes:
        keep = reader.op.attr("TKeep") if reader.op is not None else None
        if keep is None or reader.inputs[reader.op.attr("TStateOfInput")].node is not node:
            continue
        attr, forward_name, _ = keep
        entries = kept.setdefault(forward_name, [])
        entries.extend(e for e in _subgraph(reader, attr).outputs if e not in entries
                       and not (recompute and not e.node.op.attr("TRandom")))
    return kept


def _record_kept(state, inner, first, entries) -> None:
    """The forward's subgraph ``inner`` gives ``entries`` as its outputs after its first
    ``first``: each is kept at that index of an iteration's history."""
    shapes, dtypes = inner.graph.attrs["shape"], inner.graph.attrs["dtype"]
    offset = len(inner.indexed.outputs) - len(entries)  # some of the first may be skipped
    for position, entry in enumerate(entries, start=first):
        eid = inner.indexed.outputs[position - first + offset]
        state.kept[entry] = (position + 1, shapes[eid], dtypes[eid])
    state.table.kept_first, state.table.kept_last = first + 1, first + len(entries)


def _fed_kept(executor, node, name, feeds) -> tuple[dict, object]:
    """For subgraph ``name`` of a TKeep reader: ``({entry: placeholder}, kept_at)``, each
    entry the forward keeps fed through a new placeholder (added to ``feeds``), ``kept_at``
    the Lua array of their indices in an iteration's history; ``({}, nil)`` otherwise."""
    keep = node.op.attr("TKeep")
    if keep is None or keep[2] != name:
        return {}, None
    forward = executor.loop_states[node.inputs[node.op.attr("TStateOfInput")].node]
    fed, kept_at = {}, []
    for entry in _subgraph(node, keep[0]).outputs:
        if entry in forward.kept:
            index, shape, dtype = forward.kept[entry]
            fed[entry] = Node(None, f"{entry.node.name}:{entry.index}/kept",
                              {"kind": "placeholder", "shape": tuple(shape), "dtype": dtype},
                              source=entry.node.source, graph=entry.node.graph)
            feeds[fed[entry]] = tuple(shape)
            kept_at.append(index)
    return fed, lua_table(kept_at)


def _keep_only_what_is_read(executor, node, kwarg) -> None:
    """The forward keeps per iteration only the loop variables its backwards' subgraphs
    read (``state.needed``; a dynamic_rnn's output buffer is written, never read, by the
    gradient), and its bytes per iteration count those alone."""
    name = node.op.attr("TSubgraphs")[0]
    n = node.attrs["num_vars"]
    read = kwarg[name].inputs
    forward = node.inputs[node.op.attr("TStateOfInput")].node
    state = executor.loop_states[forward]
    state.needed |= {j for j in range(1, n + 1) if read[j] is not None}
    needed = sorted(state.needed)
    state.table.needed = lua_table({j: True for j in needed})
    shapes, dtypes = executor.graph.attrs["shape"], executor.graph.attrs["dtype"]
    # its first inputs are the forward's outputs (fed ones, when a stage before ran it)
    ins = executor.indexed.input_entries[executor.indexed.node_id[node]]
    state.bytes_per_iteration = sum(math.prod(shapes[ins[j - 1]]) *
                                    DTYPE_SIZE[dtypes[ins[j - 1]]] for j in needed) + sum(
        math.prod(shape) * DTYPE_SIZE[dtype] for _, shape, dtype in state.kept.values())


def _subgraph(node, name) -> Subgraph:
    """Attribute ``name`` of ``node``, which must be a subgraph."""
    value = node.attrs.get(name)
    if not isinstance(value, Subgraph):
        raise BindError(f"{node.describe()}: attribute {name!r} must be a subgraph, got "
                        f"{type(value).__name__} (tf.while_loop and tf.cond build them)")
    return value


def _state(executor, node, indexed) -> LoopState:
    """This node's LoopState, or with ``TStateOfInput`` the one of its input's node, which
    then keeps its iterations (``record``)."""
    states = executor.loop_states
    source = node.op.attr("TStateOfInput")
    if source is None:
        table = lua_table({"trips": 0, "record": False, "history": lua_table({})})
        states[node] = LoopState(table)
        return states[node]
    forward = node.inputs[source].node
    state = states[forward]
    state.table.record = True
    shapes, dtypes = executor.graph.attrs["shape"], executor.graph.attrs["dtype"]
    ins = indexed.input_entries[indexed.node_id[node]][:node.attrs["num_vars"]]  # forward's
    state.bytes_per_iteration = sum(math.prod(shapes[e]) * DTYPE_SIZE[dtypes[e]] for e in ins)
    states[node] = LoopState(state.table)  # its own executors; what it reads counts above
    return states[node]
