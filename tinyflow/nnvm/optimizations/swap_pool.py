"""PoolBeforeActivation: ``max_pool2d(tanh(z))`` becomes ``tanh(max_pool2d(z))``.

The activations (ops with ``TActivation``: tanh, sigmoid and relu) never decrease, so the largest
activation of a window (a max pool: an op with ``TArgmaxOutput``) is the activation of its
largest input: pooling first gives the same values with the activation computed on the
pooled tensor, a quarter of the elements for LeNet's 2x2 pools (its conv1 tanh: 1,152,000 ->
288,000 elements, ~0.4 ms a step; the backward's ``_tanh_backward`` likewise).  The gradient
swaps too, as the chain rule says for the new order:

    before:  g_y = _max_pool2d_backward(g_p, y, argmax);  g_z = _tanh_backward(g_y, y)
    after:   g_q = _tanh_backward(g_p, p);                g_z = _max_pool2d_backward(g_q, z, argmax)

where p = tanh(q), q = max_pool2d(z).  Equal up to ties: where a float activation rounds two
different inputs of a window to the same value (tanh saturating at +-1), the old order sent the
gradient to the first of them and the new one sends it to the larger input; that gradient is
multiplied by 1 - y*y, 0 or within an ulp of it there.

A node swaps when the activation's output is read by that max_pool2d, by max_pool2d gradients
each read by the activation's gradient alone, and nothing else (not fetched, no control
dependency on it), and when the pool shrinks the tensor at least by half (a 3x3 window moved by
1 keeps every element, and the activation is better fused into the convolution before it).
Runs before FuseConvActivation: a swapped activation is no longer the convolution's.
"""
from __future__ import annotations

import math

from ..graph import Graph, carry_entry_attrs, register_pass
from ..symbol import Node, NodeEntry

__all__ = ["pool_before_activation"]


@register_pass("PoolBeforeActivation", requires=("shape", "dtype"), provides=("shape", "dtype"))
def pool_before_activation(graph: Graph) -> Graph:
    """Swap each activation -> max_pool2d pair that qualifies (see the module); ``graph``
    itself when none does."""
    swap_pools, act_grads, dropped = _swappable(graph)
    if not swap_pools:
        return graph
    moved: dict[tuple, NodeEntry] = {}  # (old node, output) -> its entry in the new graph
    replaced: dict[Node, Node] = {}  # old node -> the node control dependencies move to
    origin: dict[Node, Node] = {}  # new node -> the old node whose entries' attributes it takes
    pools: dict[Node, tuple] = {}  # old pool -> (new pool, new activation)

    def entry(e):
        return moved.get((e.node, e.index), e)

    def controls(nodes):
        return [replaced.get(c, c) for c in nodes]

    def new(like, op, name, attrs, inputs, control_deps, source):
        node = Node(op, name, attrs, inputs, controls(control_deps), source=source,
                    graph=like.graph)
        origin[node] = like
        return node

    for node in graph.indexed.nodes:  # execution order: inputs first
        if node in dropped:
            continue
        if node in swap_pools:  # q = max_pool2d(z), p = act(q)
            act = node.inputs[0].node
            pool = new(node, node.op, node.name, node.attrs, [entry(act.inputs[0])],
                       list(node.control_deps) + list(act.control_deps), node.source)
            out = new(node, act.op, act.name, act.attrs, [NodeEntry(pool, 0)], [], act.source)
            pools[node] = (pool, out)
            moved[(node, 0)], replaced[node] = NodeEntry(out, 0), out
            if node.num_outputs() > 1:  # the argmax output
                moved[(node, 1)] = NodeEntry(pool, 1)
            continue
        if node in act_grads:  # g_q = act'(g_p, p), g_z = pool'(g_q, z, argmax)
            pool_grad = node.inputs[0].node
            g_p, shape, argmax = pool_grad.inputs  # shape: a shape node of y (and z)
            pool, out = pools[argmax.node]
            argmax_index = argmax.node.op.attr("TArgmaxOutput")
            act_grad = new(argmax.node, node.op, node.name, node.attrs,
                           [entry(g_p), NodeEntry(out, 0)], node.control_deps, node.source)
            grad = new(node, pool_grad.op, pool_grad.name, pool_grad.attrs,
                       [NodeEntry(act_grad, 0), entry(shape), NodeEntry(pool, argmax_index)],
                       pool_grad.control_deps, pool_grad.source)
            moved[(node, 0)], replaced[node] = NodeEntry(grad, 0), grad
            continue
        inputs = [entry(e) for e in node.inputs]
        deps = controls(node.control_deps)
        if inputs != node.inputs or deps != node.control_deps:
            rebuilt = new(node, node.op, node.name, node.attrs, inputs, node.control_deps,
                          node.source)
            replaced[node] = rebuilt
            for i in range(node.num_outputs()):
                moved[(node, i)] = NodeEntry(rebuilt, i)
    return carry_entry_attrs(graph, [entry(e) for e in graph.outputs], origin)


def _swappable(graph: Graph) -> tuple[set, set, set]:
    """The pools to swap, their activations' gradients (rebuilt as the pools' gradients), and
    the nodes that go (the activations and the pools' old gradients)."""
    indexed = graph.indexed
    shapes = graph.attrs["shape"]
    readers: dict[int, list] = {}
    for node in indexed.nodes:
        for e in node.inputs:
            readers.setdefault(indexed.entry_id(e), []).append(node)
    fetched = set(indexed.outputs)
    pools_swapped, act_grads, dropped = set(), set(), set()
    for act in indexed.nodes:
        if act.op is None or act.op.attr("TActivation") is None or act in indexed.waited_on:
            continue
        y = indexed.entry_id((act, 0))
        if y in fetched:
            continue
        pools = [n for n in readers.get(y, ()) if n.op.attr("TArgmaxOutput") is not None]
        if len(pools) != 1:
            continue
        pool = pools[0]
        pooled = math.prod(shapes[indexed.entry_id((pool, 0))])
        if 2 * pooled > math.prod(shapes[y]):
            continue
        grads = _gradient_pairs(act, pool, readers, indexed, fetched)
        if grads is None:
            continue
        pools_swapped.add(pool)
        dropped.add(act)
        for pool_grad, act_grad in grads:
            dropped.add(pool_grad)
            act_grads.add(act_grad)
    return pools_swapped, act_grads, dropped


def _gradient_pairs(act, pool, readers, indexed, fetched):
    """``[(max_pool2d gradient, activation gradient)]`` when every other reader of the
    activation's output y is such an activation gradient, reading y and the gradient of this
    pool's input, read by it alone (as the Gradient pass builds them), else None.  The pool
    gradient reads y for its shape only, and MaterializeShapes, run before, has swapped it for
    a shape node (z's shape too): where it has not, y has another reader and nothing swaps."""
    y = NodeEntry(act, 0)
    pairs = []
    for node in readers[indexed.entry_id(y)]:
        if node is pool:
            continue
        if node.op.name != act.op.attr("TActivation") or node.inputs[1] != y:
            return None
        pool_grad = node.inputs[0].node
        g_y = indexed.entry_id(node.inputs[0])
        # the pool's gradient is the backward op reading its argmax (as input 2)
        if (pool_grad.op is None or not pool_grad.op.attr("TIsBackward")
                or pool_grad.inputs[2:] != [NodeEntry(pool, pool.op.attr("TArgmaxOutput"))]
                or pool_grad in indexed.waited_on or g_y in fetched or len(readers[g_y]) != 1):
            return None
        pairs.append((pool_grad, node))
    return pairs
