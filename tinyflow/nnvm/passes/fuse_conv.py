"""FuseConvActivation: ``tanh(conv2d(x, w) + b)`` becomes one ``_fused_conv2d`` node.

oneDNN applies an activation as a convolution's post-op while the output is still in cache:
conv1 + bias + tanh of LeNet takes one pass over y instead of two (docs/perf_lenet.md).  The
pass fuses an activation (``tanh``, ``relu``, ``sigmoid``) whose input is a ``conv2d`` output
that nothing else reads (not fetched, no other reader, no control dependency on the conv2d).

The gradient needs no change: the backward graph was built before this pass and reads only the
activation's output y (``_tanh_backward(g, y)``) and the convolution's inputs, never the
convolution's output z.  The fused node takes the activation's name and its output's place, so
every reader of y reads the fused node instead, and z is never stored.
"""
from __future__ import annotations

from ..graph import ENTRY_ATTRS, Graph, register_pass
from ..op import Op
from ..symbol import Node, NodeEntry

__all__ = ["fuse_conv_activation"]

_ACTIVATIONS = ("tanh", "relu", "sigmoid")
_PLANNED = ("storage_id", "storage_size", "inplace_from", "layout")  # stale once rebuilt


@register_pass("FuseConvActivation", requires=("shape", "dtype"), provides=("shape", "dtype"))
def fuse_conv_activation(graph: Graph) -> Graph:
    """Replace each activation of a conv2d read by it alone with a ``_fused_conv2d`` node.

    Nodes are never changed: the fused nodes are new, and every node downstream of one is
    rebuilt; ``shape`` and ``dtype`` are carried over (a fused node's from the activation).
    Returns ``graph`` itself when nothing fuses.
    """
    fused = _fusable(graph)
    if not fused:
        return graph
    indexed = graph.indexed
    rebuilt: dict[Node, Node] = {}
    origin: dict[Node, Node] = {}  # new node -> the node whose entries' attributes it carries
    for node in indexed.nodes:
        conv = fused.get(node)
        source = conv if conv is not None else node
        inputs = [NodeEntry(rebuilt.get(e.node, e.node), e.index) for e in source.inputs]
        controls = [rebuilt.get(c, c) for c in source.control_deps]
        if conv is not None:
            attrs = {**conv.attrs, "activation": node.op.name}
            new = Node(Op.get("_fused_conv2d"), node.name, attrs, inputs, controls,
                       source=node.source, graph=node.graph)
        elif inputs != node.inputs or controls != node.control_deps:
            new = Node(node.op, node.name, node.attrs, inputs, controls, source=node.source,
                       graph=node.graph)
        else:
            continue
        rebuilt[node], origin[new] = new, node
    outputs = [NodeEntry(rebuilt.get(e.node, e.node), e.index) for e in graph.outputs]
    result = Graph(outputs, {k: v for k, v in graph.attrs.items() if k not in _PLANNED})
    for key in ENTRY_ATTRS:
        values = []
        for node in result.indexed.nodes:
            old = origin.get(node, node)
            first = indexed.entry_rptr[indexed.node_id[old]]
            values.extend(graph.attrs[key][first:first + node.num_outputs()])
        result.attrs[key] = values
    return result


def _fusable(graph: Graph) -> dict:
    """``{activation node: conv2d node}`` for the pairs to fuse."""
    indexed = graph.indexed
    readers = [0] * indexed.num_entries
    for eid in [e for inputs in indexed.input_entries for e in inputs] + indexed.outputs:
        readers[eid] += 1
    waited_on = {c for node in indexed.nodes for c in node.control_deps}
    fused = {}
    for node in indexed.nodes:
        if node.op is None or node.op.name not in _ACTIVATIONS or node.control_deps:
            continue
        conv = node.inputs[0].node
        if (conv.op is not None and conv.op.name == "conv2d" and conv not in waited_on
                and readers[indexed.entry_id(node.inputs[0])] == 1):
            fused[node] = conv
    return fused
