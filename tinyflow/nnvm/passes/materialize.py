"""MaterializeShapes: once shapes are known, an input an op reads only for its shape
(FIgnoreInputs) stops depending on the op that computes it: it is swapped for a ``shape`` node,
an input node that carries the shape and dtype and holds no data.  The ops computing the old
entry then stop running when nothing else needs them (TensorFlow's grappler does the same).

It is what keeps a training step from computing its loss: the gradient of ``loss`` starts at
``ones_like(loss)`` and flows through ``broadcast_like(g, like)``, ``_collapse_sum_like(g, like)``
and ``reshape_like(g, like)``, whose ``like`` inputs are forward entries read for their shapes.

Known shapes also tell when such an op is the identity: ``_collapse_sum_like(g, like)`` where
nothing was broadcast (the gradient of ``conv + b`` towards the convolution), an op with
``TSameShapeIdentity`` whose output has its input 0's shape and dtype.  Its readers then read
input 0 itself (unless it is fetched or waited on): no copy when another op reads g too, which
the memory plan cannot alias (mnist_deep's two (50, 28, 28, 32)-sized copies, 0.28 ms a step).
"""
from __future__ import annotations

from ..graph import Graph, register_pass, rewrite
from ..symbol import Node, NodeEntry

__all__ = ["materialize_shapes"]


@register_pass("MaterializeShapes", requires=("shape", "dtype"), provides=("shape", "dtype"))
def materialize_shapes(graph: Graph) -> Graph:
    """Swap every shape-only input computed by an op for a ``shape`` node.

    Nodes are never changed: each node with a swapped input, and every node downstream of it, is
    rebuilt (:func:`~tinyflow.nnvm.graph.rewrite`); the rest are shared with the input graph.
    ``shape`` and ``dtype`` are carried to the new graph; it is ``graph`` itself when there is
    nothing to swap.
    """
    indexed = graph.indexed
    shapes, dtypes = graph.attrs["shape"], graph.attrs["dtype"]
    shape_nodes: dict[int, Node] = {}  # entry id -> its shape node
    new_entries: dict[Node, dict] = {}

    def shape_node(entry: NodeEntry) -> NodeEntry:
        eid = indexed.entry_id(entry)
        if eid not in shape_nodes:
            name = entry.node.name if entry.index == 0 else f"{entry.node.name}:{entry.index}"
            attrs = {"kind": "shape", "shape": shapes[eid], "dtype": dtypes[eid]}
            shape_nodes[eid] = Node(None, f"{name}.shape", attrs, source=entry.node.source,
                                    graph=entry.node.graph)
            new_entries[shape_nodes[eid]] = {"shape": shapes[eid], "dtype": dtypes[eid]}
        return NodeEntry(shape_nodes[eid], 0)

    skipped = _identities(graph)

    def through(entry: NodeEntry) -> NodeEntry:  # the entry past skipped identities
        while entry.node in skipped:
            entry = entry.node.inputs[0]
        return entry

    def swap_ignored(node: Node):
        ignored = [i for i in node.attr_list("FIgnoreInputs") if node.inputs[i].node.op is not None
                   and shapes[indexed.entry_id(node.inputs[i])] is not None]
        if not ignored and not any(e.node in skipped for e in node.inputs):
            return None
        return ([shape_node(e) if i in ignored else through(e) for i, e in enumerate(node.inputs)],
                node.control_deps)

    return rewrite(graph, swap_ignored, new_entries=new_entries)


def _identities(graph: Graph) -> set:
    """Nodes of ops with ``TSameShapeIdentity`` whose output has input 0's shape and dtype,
    neither fetched nor waited on."""
    indexed, shapes, dtypes = graph.indexed, graph.attrs["shape"], graph.attrs["dtype"]
    kept = set(indexed.outputs)
    waited_on = indexed.waited_on
    found = set()
    for node in indexed.nodes:
        if node.op is None or not node.op.attr("TSameShapeIdentity") or node in waited_on:
            continue
        out, value = indexed.entry_id((node, 0)), indexed.entry_id(node.inputs[0])
        if (out not in kept and shapes[out] is not None and shapes[out] == shapes[value]
                and dtypes[out] == dtypes[value]):
            found.add(node)
    return found
