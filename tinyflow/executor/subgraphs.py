"""Nodes holding subgraphs (a loop's cond and body, ``TSubgraphs``): each subgraph bound as an
executor of its own, nested in the node's closure.

When the outer executor makes the closure of such a node, :func:`subgraph_kwargs` binds every
subgraph the op names, at the shapes and dtypes of the node's inputs (a subgraph's inputs are
the node's, by position): its own passes, its own static memory plan, allocated once and
reused every iteration, its own closures.  The node's Lua body gets, per subgraph, the table
``{closures, count, names, inputs, outputs}``: the closures to call in order (``names``: each
one's node, for errors), its input buffers by position (nil where it does not read that
input) and its output tensors.  It also gets ``state``, a Lua table of its own, or, with
``TStateOfInput`` k, the one of the node computing its input k (a loop's backward reads the
loop variables its forward kept there).
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

__all__ = ["BOUND_SHAPES", "LoopState", "subgraph_kwargs", "subgraph_variables"]

BOUND_SHAPES = 16  # shapes a loop whose variables change shape keeps its subgraphs bound at


@dataclasses.dataclass
class LoopState:
    """What the executor knows of one looping node: its Lua ``state`` table, the bytes one
    iteration keeps for the backward (0 when nothing reads them) and its nested executors."""
    table: object
    bytes_per_iteration: int = 0
    executors: list = dataclasses.field(default_factory=list)
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
    replaced by its bound executor's table, and ``state``.  A loop some of whose variables
    change shape (its run-time-shaped outputs; its backward's too) also gets ``varying``
    (``{j = true}``) and ``bind_at``: its subgraphs bound at other shapes (below)."""
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
    elif node.op.attr("TStateOfInput") is not None:
        _keep_only_what_is_read(executor, node, kwarg)
    return kwarg


def _bound(executor, node, shapes, variables, state) -> dict:
    """``{subgraph name: table}``: each subgraph of ``node`` bound as an executor at the
    shapes of the node's inputs ``shapes`` (a subgraph's inputs are the node's, by position)."""
    options = dataclasses.replace(executor.options, graph=False)
    donating = node.op.attr("TDonatedInputs")
    donated = donating(node.attrs) if donating is not None else {}
    tables = {}
    for name in node.op.attr("TSubgraphs"):
        subgraph = _subgraph(node, name)
        feeds = {p: shape for p, shape in zip(subgraph.inputs, shapes)}
        inner = type(executor)(list(subgraph.outputs), feeds, variables, options,
                               donated=[subgraph.inputs[i] for i in donated.get(name, ())])
        inner.allocate(variables)
        state.executors.append(inner)
        tables[name] = lua_table({
            "closures": inner.lua_closures, "count": len(inner.closures),
            "names": lua_table([inner.indexed.nodes[i].describe() for i in inner.op_nodes]),
            "inputs": lua_table({i + 1: inner.feed_buffers[p]
                                 for i, p in enumerate(subgraph.inputs)
                                 if p in inner.feed_buffers}),
            "outputs": lua_table(inner.output_tensors)})
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


def _keep_only_what_is_read(executor, node, kwarg) -> None:
    """The forward keeps per iteration only the loop variables this backward's subgraph
    reads (``state.needed``; a dynamic_rnn's output buffer is written, never read, by the
    gradient), and its bytes per iteration count those alone."""
    name = node.op.attr("TSubgraphs")[0]
    n = node.attrs["num_vars"]
    read = kwarg[name].inputs
    needed = [j for j in range(1, n + 1) if read[j] is not None]
    forward = node.inputs[node.op.attr("TStateOfInput")].node
    state = executor.loop_states[forward]
    state.table.needed = lua_table({j: True for j in needed})
    shapes, dtypes = executor.graph.attrs["shape"], executor.graph.attrs["dtype"]
    # its first inputs are the forward's outputs (fed ones, when a stage before ran it)
    ins = executor.indexed.input_entries[executor.indexed.node_id[node]]
    state.bytes_per_iteration = sum(math.prod(shapes[ins[j - 1]]) *
                                    DTYPE_SIZE[dtypes[ins[j - 1]]] for j in needed)


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
