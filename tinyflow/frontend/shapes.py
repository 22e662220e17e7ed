"""``tf.infer_variable_shapes``: the shapes of a net's variables, given its inputs' shapes."""
from __future__ import annotations

from ..nnvm.errors import ShapeError
from ..nnvm.graph import Graph, apply_passes
from ..nnvm.symbol import NodeEntry, Symbol, current_context
from ..session.variables import initial_shapes

__all__ = ["infer_variable_shapes"]


def _as_shape(placeholder, value) -> tuple:
    if not isinstance(placeholder, Symbol) or placeholder.node.kind != "placeholder":
        raise TypeError(f"feed_dict keys must be placeholders, got {placeholder!r}")
    shape = getattr(value, "shape", value)  # an array stands for its shape
    try:
        return tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        raise TypeError(f"the shape given for placeholder '{placeholder.op.name}' must be a "
                        f"sequence of ints (or an array), got {value!r}") from None


def infer_variable_shapes(net, feed_dict=None) -> list[tuple[Symbol, str, tuple]]:
    """The shape of every variable ``net`` depends on, inferred from the placeholders' shapes.

    Parameters
    ----------
    net : Symbol or list of Symbol
        The outputs (a loss, logits...).
    feed_dict : dict, optional
        ``{placeholder: shape}`` (an array stands for its shape).  Placeholders declared with a
        full shape need no entry.

    Returns
    -------
    list of ``(variable, name, shape)``, in the graph's execution order (stable from run to run),
    so that ``for v, name, shape in tf.infer_variable_shapes(...)`` can initialise each one with
    ``tf.assign(v, tf.normal(shape, stdev))``.

    Raises
    ------
    ShapeError
        When the shapes given do not determine some variable's shape (naming the variable and
        the placeholders without a shape), or disagree with an op's rule.
    """
    outputs = [e for s in ([net] if isinstance(net, Symbol) else net) for e in s.outputs]
    known = {p.node: _as_shape(p, v) for p, v in (feed_dict or {}).items()}
    graph = Graph(outputs)
    context = current_context()
    # a tf.Variable's initial value gives its shape; a layer's weight is shaped by its use
    declared = [v for v in map(context.variable, graph.indexed.nodes) if v is not None]
    known.update({n: s for n, s in initial_shapes(declared).items() if s is not None})
    graph = apply_passes(graph.with_attrs(shape_inputs=known), "InferShape")
    indexed, shapes = graph.indexed, graph.attrs["shape"]
    inputs = [(indexed.nodes[nid], shapes[indexed.entry_id((nid, 0))])
              for nid in indexed.input_nodes]
    unshaped = [f"'{node.name}'" for node, shape in inputs
                if node.kind == "placeholder" and shape is None]
    result = []
    for node, shape in inputs:
        if node.kind == "placeholder":
            continue
        if shape is None:
            hint = (f": give the shape of placeholder {', '.join(unshaped)} in feed_dict"
                    if unshaped else "")
            raise ShapeError(f"cannot infer the shape of variable '{node.name}' (created at "
                             f"{node.source}) from the shapes given{hint}")
        result.append((context.variable(node) or Symbol([NodeEntry(node, 0)]), node.name, shape))
    return result
