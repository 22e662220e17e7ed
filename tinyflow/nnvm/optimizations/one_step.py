"""KeepOneStep: a recurrent op's per-step outputs that nothing reads keep one step's row.

``lstm_block`` writes every step's c, gates' activations and tanh(c) (``[T, B, ...]``) for its
gradient (its ``TOneStepOutputs``).  A forward-only run, scoring 2,000 sequences of 28 steps at
128 units, reads none of them: 170 MB of a 209 MB plan.  Such a node is rebuilt with attr
``one_step`` naming those outputs, which its shape rule then gives one row (``[1, B, ...]``)
that each step writes over.
"""
from __future__ import annotations

from ..graph import Graph, register_pass, rewrite
from ..symbol import Node

__all__ = ["keep_one_step"]


@register_pass("KeepOneStep", requires=("shape", "dtype"), provides=("shape", "dtype"))
def keep_one_step(graph: Graph) -> Graph:
    """Rebuild each node with ``TOneStepOutputs`` some of which are neither read nor fetched,
    attr ``one_step`` listing those, their shapes' first axis 1; ``graph`` itself when there
    is none."""
    indexed = graph.indexed
    read = {e for inputs in indexed.input_entries for e in inputs} | set(indexed.outputs)
    unread = {}
    for nid, node in enumerate(indexed.nodes):
        kept = node.op.attr("TOneStepOutputs") if node.op is not None else None
        if kept and "one_step" not in node.attrs:
            free = tuple(i for i in kept if indexed.entry_rptr[nid] + i not in read)
            if free:
                unread[node] = free
    if not unread:
        return graph

    trimmed = {}

    def trim(node):
        if node not in unread:
            return None
        trimmed[node.name] = unread[node]
        return Node(node.op, node.name, {**node.attrs, "one_step": unread[node]}, node.inputs,
                    node.control_deps, source=node.source, graph=node.graph)
    graph = rewrite(graph, trim)
    indexed, shapes = graph.indexed, list(graph.attrs["shape"])
    for nid, node in enumerate(indexed.nodes):  # the carried shapes, now of one step
        for i in trimmed.get(node.name, ()) if node.op is not None else ():
            eid = indexed.entry_rptr[nid] + i
            shapes[eid] = (1, *shapes[eid][1:])
    return graph.with_attrs(shape=shapes)
