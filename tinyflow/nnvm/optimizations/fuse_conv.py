"""FuseConvActivation: ``tanh(conv2d(x, w) + b)`` becomes one ``_fused_conv2d`` node, and
``tanh(linear(x, w) + b)`` one ``_fused_linear``.

oneDNN applies an activation as a convolution's post-op while the output is still in cache:
conv1 + bias + tanh of LeNet takes one pass over y instead of two (docs/performance.md).  The
pass fuses an activation (an op with ``TActivation``: ``tanh``, ``relu``, ``sigmoid``) whose
input is the output of a layer with ``TFusedWithActivation`` (``conv2d``, ``linear``) that
nothing else reads (not fetched, no other reader, no control dependency on the layer), or such
an output plus a bias along its channels (an op with ``FBiasLayout``: ``bias_add``, or ``+ b``
in NHWC: TensorFlow's way), the bias added by the fused node.  A bias with no activation after
it joins a layer with a 4-d output (a convolution: PoolBeforeActivation moved the activation
past the pool, ``relu(max_pool2d(conv2d(x, w) + b))``) all the same.

The gradient needs no change: the backward graph was built before this pass and reads only the
activation's output y (``_tanh_backward(g, y)``) and the convolution's inputs, never the
convolution's output z (a bias gradient reads z for its shape only, and MaterializeShapes, run
before, has swapped it for a shape node).  The fused node takes the activation's name and its
output's place, so every reader of y reads the fused node instead, and z is never stored.
"""
from __future__ import annotations

from ..graph import Graph, register_pass, rewrite
from ..op import Op
from ..symbol import Node

__all__ = ["fuse_conv_activation"]


def _is_activation(node) -> bool:
    return node.op is not None and node.op.attr("TActivation") is not None


@register_pass("FuseConvActivation", requires=("shape", "dtype"), provides=("shape", "dtype"))
def fuse_conv_activation(graph: Graph) -> Graph:
    """Replace each activation of a conv2d (linear) read by it alone with a ``_fused_conv2d``
    (``_fused_linear``) node, and each bias added to a bias-less conv2d's output read by the
    addition alone, with no activation after it, with a conv2d that adds it.

    Nodes are never changed: the fused nodes are new, and every node downstream of one is
    rebuilt (:func:`~tinyflow.nnvm.graph.rewrite`).  Returns ``graph`` itself when nothing
    fuses.
    """
    fused = _fusable(graph)

    def fuse(node):
        if node not in fused:
            return None
        conv, bias = fused[node]
        attrs, op = dict(conv.attrs), conv.op
        inputs, controls = list(conv.inputs), list(conv.control_deps)
        if _is_activation(node):
            attrs["activation"] = node.op.name
            op = Op.get(conv.op.attr("TFusedWithActivation"))
        if bias is not None:  # conv2d + bias_add: the bias joins the convolution
            added = node.inputs[0].node if _is_activation(node) else node
            attrs["no_bias"] = False
            inputs.append(added.inputs[1])
            controls += added.control_deps
        return Node(op, node.name, attrs, inputs, controls, source=node.source,
                    graph=node.graph)
    return rewrite(graph, fuse) if fused else graph


def _fusable(graph: Graph) -> dict:
    """``{activation node: (conv2d node, bias entry or None)}`` for the chains to fuse."""
    indexed = graph.indexed
    readers = [0] * indexed.num_entries
    for eid in [e for inputs in indexed.input_entries for e in inputs] + indexed.outputs:
        readers[eid] += 1
    waited_on = indexed.waited_on

    def alone(entry, key):  # the node computing entry, if its op has attribute key, read once
        node = entry.node
        if (node.op is not None and node.op.attr(key) is not None and node not in waited_on
                and readers[indexed.entry_id(entry)] == 1):
            return node
        return None

    fused, in_chains = {}, set()
    for node in indexed.nodes:
        if not _is_activation(node):
            continue
        conv = alone(node.inputs[0], "TFusedWithActivation")
        added = alone(node.inputs[0], "FBiasLayout")
        if conv is not None:
            fused[node] = (conv, None)
        elif added is not None:
            chain = _bias_of(added, alone, graph.attrs["shape"], indexed)
            if chain is not None:
                fused[node] = chain
                in_chains.add(added)
    shapes = graph.attrs["shape"]
    for node in indexed.nodes:  # a bias with no activation after it (pooled first, say)
        if node.op is not None and node.op.attr("FBiasLayout") and node not in in_chains:
            chain = _bias_of(node, alone, shapes, indexed)
            if chain is not None and len(shapes[indexed.entry_id((chain[0], 0))]) == 4:
                fused[node] = chain
    return fused


def _bias_of(added, alone, shapes, indexed):
    """``(conv2d or linear node, bias entry)`` when ``added`` adds a bias along the channels to
    the output of a bias-less one read by it alone (TensorFlow's conv2d + bias_add), else
    None."""
    value, bias = added.inputs
    conv = alone(value, "TFusedWithActivation")
    if conv is None or not conv.attrs.get("no_bias", True):
        return None
    out_shape = shapes[indexed.entry_id(value)]
    # a convolution's default layout is NCHW; a 2-d output (linear's) has its features last
    layout = conv.attrs.get("data_format") or ("NCHW" if len(out_shape) == 4 else "NHWC")
    channels = out_shape[1 if layout == "NCHW" else -1]
    along = added.op.attr("FBiasLayout")(added.attrs) == layout
    return (conv, bias) if along and shapes[indexed.entry_id(bias)] == (channels,) else None
