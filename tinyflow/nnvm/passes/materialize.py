"""MaterializeShapes: once shapes are known, an input an op reads only for its shape
(FIgnoreInputs) stops depending on the op that computes it: it is swapped for a ``shape`` node,
an input node that carries the shape and dtype and holds no data.  The ops computing the old
entry then stop running when nothing else needs them (TensorFlow's grappler does the same).

It is what keeps a training step from computing its loss: the gradient of ``loss`` starts at
``ones_like(loss)`` and flows through ``broadcast_like(g, like)``, ``_collapse_sum_like(g, like)``
and ``reshape_like(g, like)``, whose ``like`` inputs are forward entries read for their shapes.
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

    def swap_ignored(node: Node):
        ignored = [i for i in node.attr_list("FIgnoreInputs") if node.inputs[i].node.op is not None
                   and shapes[indexed.entry_id(node.inputs[i])] is not None]
        if not ignored:
            return None
        return ([shape_node(e) if i in ignored else e for i, e in enumerate(node.inputs)],
                node.control_deps)

    return rewrite(graph, swap_ignored, new_entries=new_entries)
