"""Gradient: build the gradient graph by reverse-mode automatic differentiation.

For each node, from the outputs back, the gradients of its outputs are summed (an entry used
twice gets two contributions, added with ``elemwise_sum``) and the op's ``FGradient`` rule turns
them into gradients of its inputs.  Rules build graph with ordinary symbols, so the result is an
ordinary graph that the other passes treat like any other.  The ops the pass builds itself are
those declared for the roles it needs (``TGradientRole``): "sum" (``elemwise_sum``), "one" for
the head gradients (``ones_like``) and "zero" for an x the outputs do not reach
(``zeros_like``).

The pass names the nodes it builds with a :class:`~tinyflow.nnvm.symbol.Naming` of its own
(``grad_name_prefix`` and counters local to the call), and each takes the ``source``
(file:line) of the forward node whose gradient it computes: the same graph gives the same
gradient graph, whatever was built before.
"""
from __future__ import annotations

from ..errors import GraphError
from ..graph import Graph, _dfs_postorder, register_pass
from ..op import Op, list_ops
from ..symbol import Naming, Node, NodeEntry, Symbol, create_op, current_context

__all__ = ["GradNode", "gradient", "register_gradient"]

# Gradient functions by name (tf.RegisterGradient), process-wide as the op registry: a node
# whose attribute ``_gradient_op_type`` names one (Graph.gradient_override_map) takes it
# instead of its op's FGradient.  A graph document can name one, never bring one.
_REGISTERED_GRADIENTS: dict = {}


def register_gradient(name: str, rule) -> None:
    """Register ``rule(op, *out_grads) -> grad | [grad, ...]`` (TensorFlow's convention) as the
    gradient named ``name``; KeyError when the name is taken, as TF's."""
    if not isinstance(name, str):
        raise TypeError(f"a gradient's name must be a string, got {type(name).__name__}")
    if name in _REGISTERED_GRADIENTS:
        raise KeyError(f"Registering two gradient with name '{name}'!")
    _REGISTERED_GRADIENTS[name] = rule


class GradNode:
    """What an FGradient rule sees of a node: symbols for its inputs and outputs, its attrs."""

    def __init__(self, node):
        self.node = node
        self.op = node.op
        self.name = node.name
        self.attrs = node.attrs
        self.inputs = [Symbol([e]) for e in node.inputs]
        self.outputs = [Symbol([NodeEntry(node, i)]) for i in range(node.num_outputs())]
        self.type, self.get_attr = node.type, node.get_attr  # as TF's op: a registered rule's


def _build(role: str, *inputs, **attrs) -> Symbol:
    """A node of the op declared for ``role`` (``TGradientRole``: "sum", "one", "zero")."""
    return create_op(Op.with_attr("TGradientRole", role).name, *inputs, **attrs)


def _sum(grads: list[Symbol]) -> Symbol:
    return grads[0] if len(grads) == 1 else _build("sum", *grads, num_args=len(grads))


@register_pass("Gradient", requires=("grad_xs",), provides=("grad_outputs",))
def gradient(graph: Graph) -> Graph:
    """Gradients of the sum of ``graph.outputs`` with respect to ``graph.attrs["grad_xs"]``.

    ``grad_xs`` is a list of NodeEntry; ``grad_ys_out_grad`` (optional) a list of symbols, the
    head gradients (ones by default); ``grad_name_prefix`` (default ``"gradients/"``) starts the
    name of every node built.  Returns a graph whose outputs are the gradients, one per x
    (``zeros_like(x)`` where x does not influence the outputs), with attribute ``grad_outputs``
    telling which xs were reached (``None`` for an unreached x).  ``grad_stop`` (optional, a
    list of NodeEntry) are held constant: their gradient flows no further back (TensorFlow's
    ``stop_gradients``).
    """
    naming = Naming(prefix=graph.attrs.get("grad_name_prefix", "gradients/"))
    with current_context().use_naming(naming):
        return _gradient(graph, naming)


def _gradient(graph: Graph, naming: Naming) -> Graph:
    xs = list(graph.attrs["grad_xs"])
    ys = graph.outputs
    head_grads = graph.attrs.get("grad_ys_out_grad")
    if head_grads is None:
        head_grads = []
        for y in ys:
            naming.source = y.node.source
            head_grads.append(_build("one", Symbol([y])))
    order = _dfs_postorder([y.node for y in ys])
    # Only nodes that depend on some x need a gradient.
    x_nodes = {x.node for x in xs}
    stops = {e.node for e in graph.attrs.get("grad_stop", ())}
    needed = set()
    for node in order:
        if node in x_nodes or node not in stops and any(e.node in needed for e in node.inputs):
            needed.add(node)
    grads: dict[NodeEntry, list[Symbol]] = {}
    for y, head in zip(ys, head_grads):
        grads.setdefault(y, []).append(head)
    for node in reversed(order):
        if node.op is None or node not in needed or node in stops:
            continue
        out_entries = [NodeEntry(node, i) for i in range(node.num_outputs())]
        if not any(e in grads for e in out_entries):
            continue
        naming.source = node.source
        for entry, g in zip(node.inputs, _input_grads(node, out_entries, grads)):
            if g is not None and entry.node in needed:
                grads.setdefault(entry, []).append(g)
    outputs, reached = [], []
    for x in xs:
        naming.source = x.node.source
        if x in grads:
            outputs.append(_sum(grads[x]).outputs[0])
            reached.append(True)
        else:
            outputs.append(_build("zero", Symbol([x])).outputs[0])
            reached.append(False)
    return Graph(outputs, {"grad_outputs": reached})


def _input_grads(node, out_entries, grads) -> list:
    """``node``'s FGradient rule applied to the summed gradients of its outputs."""
    rule = node.op.attr("FGradient")
    if "_gradient_op_type" in node.attrs:  # Graph.gradient_override_map
        rule = _registered_rule(node)
    if rule is None:
        raise GraphError(f"{node.describe()} has no gradient (FGradient) but a gradient "
                         f"must flow through it")
    out_grads = [_sum(grads[e]) if e in grads else _build("zero", Symbol([e]))
                 for e in out_entries]
    graph, guards = current_context(), node.guards()
    made_before = len(graph.nodes_by_name)
    try:
        in_grads = rule(GradNode(node), out_grads)
    except Exception as err:  # a bug in a (user's) rule: say which node it was running on
        raise GraphError(f"{node.describe()}: its FGradient rule raised "
                         f"{type(err).__name__}: {err}") from err
    if guards:  # the gradient of a tf.cond branch's op runs only when the branch ran
        for made in list(graph.nodes_by_name.values())[made_before:]:
            if made.op is not None:
                made.control_deps += [g for g in guards if g not in made.control_deps]
    if len(in_grads) != len(node.inputs):
        raise GraphError(f"FGradient of {node.describe()} returned {len(in_grads)} "
                         f"gradients for {len(node.inputs)} inputs")
    return in_grads


def _registered_rule(node):
    """The FGradient rule of the gradient ``node``'s ``_gradient_op_type`` names."""
    name = node.attrs["_gradient_op_type"]
    registered = _REGISTERED_GRADIENTS.get(name)
    if registered is None:  # an op type's own gradient, as TF's registry has ({"Sign": "Identity"})
        ops = [op for op in map(Op.get, list_ops()) if op.attr("FGradient") is not None
               and Node(op, "", graph=node.graph).type == name]
        if len(ops) == 1:
            return ops[0].attr("FGradient")
        raise GraphError(f"{node.describe()}: no gradient is registered under the name "
                         f"{name!r} its gradient_override_map gives it (tf.RegisterGradient)")

    def rule(grad_node, out_grads):
        grads = registered(grad_node, *out_grads)
        return list(grads) if isinstance(grads, (list, tuple)) else [grads]
    return rule
