"""FuseConvActivation: ``tanh(conv2d(x, w) + b)`` becomes one ``_fused_conv2d`` node, and
``tanh(linear(x, w) + b)`` one ``_fused_linear``.

oneDNN applies an activation as a convolution's post-op while the output is still in cache:
conv1 + bias + tanh of LeNet takes one pass over y instead of two (docs/perf_lenet.md).  The
pass fuses an activation (``tanh``, ``relu``, ``sigmoid``) whose input is a ``conv2d`` output
that nothing else reads (not fetched, no other reader, no control dependency on the conv2d), or
such an output plus a bias along its channels (``bias_add``, or ``+ b`` in NHWC: TensorFlow's
way), the bias added by the fused node.  A bias with no activation after it (PoolBeforeActivation
moved it past the pool: ``relu(max_pool2d(conv2d(x, w) + b))``) joins the conv2d all the same.

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

_ACTIVATIONS = ("tanh", "relu", "sigmoid")
_FUSED = {"conv2d": "_fused_conv2d", "linear": "_fused_linear"}
_BIAS_ADDS = ("elemwise_add", "bias_add")


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
        if node.op.name in _ACTIVATIONS:
            attrs["activation"], op = node.op.name, Op.get(_FUSED[conv.op.name])
        if bias is not None:  # conv2d + bias_add: the bias joins the convolution
            added = node.inputs[0].node if node.op.name in _ACTIVATIONS else node
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

    def alone(entry, op_names):  # the node computing entry, if one of op_names read once
        node = entry.node
        if (node.op is not None and node.op.name in op_names and node not in waited_on
                and readers[indexed.entry_id(entry)] == 1):
            return node
        return None

    fused, in_chains = {}, set()
    for node in indexed.nodes:
        if node.op is None or node.op.name not in _ACTIVATIONS:
            continue
        conv = alone(node.inputs[0], _FUSED)
        added = alone(node.inputs[0], _BIAS_ADDS)
        if conv is not None:
            fused[node] = (conv, None)
        elif added is not None:
            chain = _bias_of(added, alone, graph.attrs["shape"], indexed)
            if chain is not None:
                fused[node] = chain
                in_chains.add(added)
    for node in indexed.nodes:  # a bias with no activation after it (pooled first, say)
        if node.op is not None and node.op.name in _BIAS_ADDS and node not in in_chains:
            chain = _bias_of(node, alone, graph.attrs["shape"], indexed)
            if chain is not None and chain[0].op.name == "conv2d":
                fused[node] = chain
    return fused


def _bias_of(added, alone, shapes, indexed):
    """``(conv2d or linear node, bias entry)`` when ``added`` adds a bias along the channels to
    the output of a bias-less one read by it alone (TensorFlow's conv2d + bias_add), else
    None."""
    value, bias = added.inputs
    conv = alone(value, _FUSED)
    if conv is None or not conv.attrs.get("no_bias", True):
        return None
    layout = conv.attrs.get("data_format") or ("NCHW" if conv.op.name == "conv2d" else "NHWC")
    channels = shapes[indexed.entry_id(value)][1 if layout == "NCHW" else -1]
    if added.op.name == "bias_add":  # its channel axis: NCHW's 1 or the last
        along = (added.attrs.get("data_format") or "NHWC") == layout
    else:  # a (C,) vector broadcasts along the last axis (linear's features, NHWC's channels)
        along = layout == "NHWC"
    return (conv, bias) if along and shapes[indexed.entry_id(bias)] == (channels,) else None
