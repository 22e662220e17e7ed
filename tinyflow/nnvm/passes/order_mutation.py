"""OrderMutation: an op that writes a variable runs after the other readers of that variable.

An op mutating an input (FMutateInputs: ``assign``, the optimizer updates) gets a control
dependency on every other node reading the same variable, unless that node depends on the
writer itself (it reads the new value, so it must come after).  The execution order
(:class:`~tinyflow.nnvm.graph.IndexedGraph`, a topological order) then keeps write-after-read.
NNVM does the same in ``src/pass/order_mutation.cc``.
"""
from __future__ import annotations

from ..errors import GraphError
from ..graph import Graph, node_deps, register_pass, rewrite
from ..symbol import Node

__all__ = ["order_mutation"]


@register_pass("OrderMutation", provides=("mutation_ordered",))
def order_mutation(graph: Graph) -> Graph:
    """Add the control deps that order every variable's readers before its writers.

    Writers are rebuilt with the extra deps (and every node downstream of them, so nodes are
    never mutated); per-entry ``shape`` and ``dtype`` are carried.  Raises GraphError when no
    order can satisfy them (two ops each writing a variable the other reads).
    """
    nodes = graph.indexed.nodes
    writers = [(n, n.inputs[i].node) for n in nodes for i in n.attr_list("FMutateInputs")]
    if not writers:
        return graph.with_attrs(mutation_ordered=True)
    users: dict[Node, list[Node]] = {n: [] for n in nodes}
    for node in nodes:
        for dep in node_deps(node):
            users[dep].append(node)
    writes = {}
    for writer, var in writers:
        writes.setdefault(var, set()).add(writer)
    extra: dict[Node, list[Node]] = {}
    for writer, var in writers:
        after = _reachable(writer, users)  # these read the new value
        extra.setdefault(writer, []).extend(
            r for r in users[var] if r not in writes[var] and r not in after
            and r not in writer.control_deps)
    _check_acyclic(nodes, users, extra)
    ordered = rewrite(graph, lambda n: (n.inputs, list(n.control_deps) + extra[n])
                      if extra.get(n) else None)
    return ordered.with_attrs(mutation_ordered=True)


def _reachable(start: Node, users: dict[Node, list[Node]]) -> set[Node]:
    seen, stack = {start}, [start]
    while stack:
        for user in users[stack.pop()]:
            if user not in seen:
                seen.add(user)
                stack.append(user)
    return seen


def _check_acyclic(nodes, users, extra):
    """Kahn's algorithm over the graph plus ``extra`` deps; GraphError naming a cycle's nodes."""
    waiting = {n: len(node_deps(n)) + len(extra.get(n, ())) for n in nodes}
    waits_on_me = {n: list(users[n]) for n in nodes}
    for writer, readers in extra.items():
        for reader in readers:
            waits_on_me[reader].append(writer)
    ready = [n for n in nodes if waiting[n] == 0]
    done = 0
    while ready:
        node = ready.pop()
        done += 1
        for user in waits_on_me[node]:
            waiting[user] -= 1
            if waiting[user] == 0:
                ready.append(user)
    if done != len(nodes):
        stuck = [n.name for n in nodes if waiting[n] > 0]
        raise GraphError(f"cannot order the graph: a variable is read after it is assigned in a "
                         f"cycle through {', '.join(stuck[:5])}")
