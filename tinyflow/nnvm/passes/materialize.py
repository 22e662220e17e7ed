"""MaterializeShapes: once shapes are known, an input an op reads only for its shape
(FIgnoreInputs) stops depending on the op that computes it: it is swapped for a ``shape`` node,
an input node that carries the shape and dtype and holds no data.  The ops computing the old
entry then stop running when nothing else needs them (TensorFlow's grappler does the same).

It is what keeps a training step from computing its loss: the gradient of ``loss`` starts at
``ones_like(loss)`` and flows through ``broadcast_like(g, like)``, ``_collapse_sum_like(g, like)``
and ``reshape_like(g, like)``, whose ``like`` inputs are forward entries read for their shapes.
"""
from __future__ import annotations

from ..graph import Graph, register_pass
from ..symbol import Node, NodeEntry

__all__ = ["materialize_shapes"]

# Per-entry attributes of the input graph; they describe other entries once nodes change.
_ENTRY_ATTRS = ("shape", "dtype", "storage_id", "storage_size", "inplace_from")


@register_pass("MaterializeShapes", requires=("shape", "dtype"))
def materialize_shapes(graph: Graph) -> Graph:
    """Swap every shape-only input computed by an op for a ``shape`` node.

    Nodes are never changed: each node with a swapped input, and every node downstream of it, is
    rebuilt; the rest are shared with the input graph.  The result carries the input's attributes
    except the per-entry ones (run InferShape and InferType on it again); it is ``graph`` itself
    when there is nothing to swap.
    """
    indexed = graph.indexed
    shapes, dtypes = graph.attrs["shape"], graph.attrs["dtype"]
    rebuilt: dict[Node, Node] = {}
    shape_nodes: dict[int, Node] = {}  # entry id -> its shape node

    def shape_node(entry: NodeEntry) -> NodeEntry:
        eid = indexed.entry_id(entry)
        if eid not in shape_nodes:
            name = entry.node.name if entry.index == 0 else f"{entry.node.name}:{entry.index}"
            shape_nodes[eid] = Node(None, f"{name}.shape", {
                "kind": "shape", "shape": shapes[eid], "dtype": dtypes[eid]},
                source=entry.node.source)
        return NodeEntry(shape_nodes[eid], 0)

    for node in indexed.nodes:  # execution order: inputs are rebuilt first
        ignored = [i for i in node.attr_list("FIgnoreInputs") if node.inputs[i].node.op is not None
                   and shapes[indexed.entry_id(node.inputs[i])] is not None]
        inputs = [shape_node(e) if i in ignored else NodeEntry(rebuilt.get(e.node, e.node), e.index)
                  for i, e in enumerate(node.inputs)]
        controls = [rebuilt.get(c, c) for c in node.control_deps]
        if ignored or inputs != node.inputs or controls != node.control_deps:
            rebuilt[node] = Node(node.op, node.name, node.attrs, inputs, controls,
                                 source=node.source)
    if not rebuilt:
        return graph
    attrs = {k: v for k, v in graph.attrs.items() if k not in _ENTRY_ATTRS}
    return Graph([NodeEntry(rebuilt.get(e.node, e.node), e.index) for e in graph.outputs], attrs)
