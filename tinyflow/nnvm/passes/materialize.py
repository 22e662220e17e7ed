"""MaterializeShapes: once shapes are known, an op that reads only its input's shape becomes a
constant of that shape, so the ops computing that input stop running when nothing else needs them
(TensorFlow's grappler does the same).  ``ones_like(loss)``, the head of every training gradient,
is what it is for: the forward ops after the last one the gradient reads are not run for a step
that does not fetch the loss.

An op opts in with ``TMaterializeAs``: the name of an op without inputs that computes the same
output from attributes ``shape`` and ``dtype`` (``ones_like`` -> ``ones``).
"""
from __future__ import annotations

from ..graph import Graph, register_pass
from ..op import Op
from ..symbol import Node, NodeEntry

__all__ = ["materialize_shapes"]

# Per-entry attributes of the input graph; they describe other entries once nodes change.
_ENTRY_ATTRS = ("shape", "dtype", "storage_id", "storage_size", "inplace_from")


@register_pass("MaterializeShapes", requires=("shape", "dtype"))
def materialize_shapes(graph: Graph) -> Graph:
    """Replace ``TMaterializeAs`` ops by constants of their inferred shape.

    Nodes are never changed: each replaced node and every node downstream of it is rebuilt, the
    rest are shared with the input graph.  The result carries the input's attributes except the
    per-entry ones (run InferShape and InferType on it again); it is ``graph`` itself when no
    node opts in (or has a known shape).
    """
    indexed = graph.indexed
    shapes, dtypes = graph.attrs["shape"], graph.attrs["dtype"]
    rebuilt: dict[Node, Node] = {}

    def entry(e: NodeEntry) -> NodeEntry:
        return NodeEntry(rebuilt.get(e.node, e.node), e.index)

    for nid, node in enumerate(indexed.nodes):  # execution order: inputs are rebuilt first
        target = node.op.attr("TMaterializeAs") if node.op is not None else None
        eid = indexed.entry_id((nid, 0))
        if target is not None and shapes[eid] is not None:
            rebuilt[node] = Node(Op.get(target), node.name,
                                 {"shape": shapes[eid], "dtype": dtypes[eid]},
                                 control_deps=[rebuilt.get(c, c) for c in node.control_deps],
                                 source=node.source)
        elif any(e.node in rebuilt for e in node.inputs) or \
                any(c in rebuilt for c in node.control_deps):
            rebuilt[node] = Node(node.op, node.name, node.attrs, [entry(e) for e in node.inputs],
                                 [rebuilt.get(c, c) for c in node.control_deps],
                                 source=node.source)
    if not rebuilt:
        return graph
    attrs = {k: v for k, v in graph.attrs.items() if k not in _ENTRY_ATTRS}
    return Graph([entry(e) for e in graph.outputs], attrs)
