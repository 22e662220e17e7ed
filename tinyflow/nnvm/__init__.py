"""An NNVM-like graph layer in pure Python: op registry, symbols, graphs and passes.

Nothing here imports torch: graphs are built, differentiated, shape-inferred, planned and saved
without it.
"""
from . import attrs, optimizations, passes, symbol
from .attrs import broadcast_shapes, inplace_first, no_gradient, same_shape, same_type
from .errors import BindError, DTypeError, GraphError, ShapeError, TinyflowError
from .graph import Graph, IndexedGraph, apply_passes, list_passes, register_pass
from .op import Op, list_ops, register_op
from .symbol import (
    Group,
    Node,
    NodeEntry,
    Symbol,
    create_op,
    current_context,
    graph_input,
    reset_default_graph,
)

__all__ = [
    "BindError",
    "DTypeError",
    "Graph",
    "GraphError",
    "Group",
    "IndexedGraph",
    "Node",
    "NodeEntry",
    "Op",
    "ShapeError",
    "Symbol",
    "TinyflowError",
    "apply_passes",
    "attrs",
    "broadcast_shapes",
    "create_op",
    "current_context",
    "gradients",
    "graph_input",
    "inplace_first",
    "list_ops",
    "list_passes",
    "no_gradient",
    "optimizations",
    "passes",
    "register_op",
    "register_pass",
    "reset_default_graph",
    "same_shape",
    "same_type",
    "symbol",
]


def gradients(ys, xs, grad_ys=None, unconnected="zero", stop_gradients=()) -> list:
    """Symbols for d(sum of ys)/d(x) for each x, built by the Gradient pass.

    Parameters
    ----------
    ys, xs : Symbol or list of Symbol
    grad_ys : list of Symbol, optional
        Head gradients, one per y (ones by default).
    unconnected : {"zero", "none"}
        What an x that does not influence ys gets: ``zeros_like(x)`` or ``None`` (TF's choice).
    stop_gradients : list of Symbol
        Held constant: no gradient flows back through them (TensorFlow's ``stop_gradients``).

    Returns
    -------
    list, one Symbol (or None) per x.
    """
    if unconnected not in ("zero", "none"):
        raise ValueError(f"unconnected must be 'zero' or 'none', got {unconnected!r}")
    ys = [ys] if isinstance(ys, Symbol) else list(ys)
    xs = [xs] if isinstance(xs, Symbol) else list(xs)
    # each call's nodes are named apart: gradients/..., gradients_1/...
    prefix = current_context().unique_name("gradients") + "/"
    graph = Graph([y.outputs[0] for y in ys], {"grad_xs": [x.outputs[0] for x in xs],
                                               "grad_name_prefix": prefix})
    if grad_ys is not None:
        graph = graph.with_attrs(grad_ys_out_grad=list(grad_ys))
    stop_gradients = [stop_gradients] if isinstance(stop_gradients, Symbol) else stop_gradients
    if stop_gradients:
        graph = graph.with_attrs(grad_stop=[s.outputs[0] for s in stop_gradients])
    result = apply_passes(graph, "Gradient")
    return [Symbol([e]) if reached or unconnected == "zero" else None
            for e, reached in zip(result.outputs, result.attrs["grad_outputs"])]
