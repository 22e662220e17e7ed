"""Subgraphs: a graph a node holds as an attribute and runs itself (a loop's cond and body).

A :class:`Subgraph` is a function as a graph: its ``inputs`` are placeholder nodes that belong
to it, its ``outputs`` entries computed from them.  It is TensorFlow 2's functional control
flow: the node holding it (``while_loop``) passes its own inputs, by position, as the
subgraph's inputs, and the executor binds the subgraph as an executor of its own
(``tinyflow/executor/subgraphs.py``; the op lists such attributes in ``TSubgraphs``).

:func:`close_over` turns what a Python function built into a subgraph: nodes made outside it
that it read (a tensor of the enclosing graph, a placeholder, a variable read but never
written inside) become extra inputs (*captures*); a variable the subgraph writes stays itself,
so an assignment inside runs on the session's variable every time the subgraph runs.
"""
from __future__ import annotations

from .graph import Graph, _dfs_postorder, apply_passes
from .symbol import Node, NodeEntry, graph_input

__all__ = ["Subgraph", "close_over", "infer_shapes", "placeholder_like"]


class Subgraph:
    """A graph with its own input placeholders: ``inputs`` (Nodes), ``outputs`` (NodeEntry).

    Not a tuple, so attributes keep it whole; SaveJSON writes it as the indices of its nodes
    (``nnvm/passes/serialize_subgraphs.py``)."""

    __slots__ = ("inputs", "outputs", "shapes_inferred")

    def __init__(self, inputs, outputs):
        self.inputs, self.outputs = tuple(inputs), tuple(outputs)
        # infer_shapes' answers by input shapes: a loop's shape rule runs on every sweep of
        # InferShape, so without them a loop nested k deep is inferred 2**k times
        self.shapes_inferred: dict = {}

    def nodes(self) -> list:
        """Every node of the subgraph, in execution order."""
        return _dfs_postorder([e.node for e in self.outputs])

    def __repr__(self) -> str:
        return f"<Subgraph {len(self.inputs)} inputs, {len(self.outputs)} outputs>"


def placeholder_like(graph, hint: str, shape, dtype: str) -> Node:
    """A new placeholder node of ``graph`` (a subgraph's input) of ``shape`` (None dims for
    any size, or None) and ``dtype``."""
    name = graph.unique_name(hint)
    shape = None if shape is None else tuple(-1 if d is None else int(d) for d in shape)
    return graph_input(name, kind="placeholder", shape=shape, dtype=dtype).node


def close_over(graph, inputs, outputs, made: set, captures: dict, describe) -> list:
    """Rebuild what a function made into a subgraph reading ``inputs`` and captures only.

    Parameters
    ----------
    graph : GraphContext
        Where the capture placeholders go.
    inputs : list of Node
        The subgraph's own placeholders (the loop variables).
    outputs : list of NodeEntry
        What the function returned.
    made : set of Node
        The nodes the function made (everything else it reads is captured).
    captures : dict
        ``{outer NodeEntry: placeholder Node}``, shared by the subgraphs of one node (its cond
        and body read one capture through one placeholder); new captures are added to it.
    describe : function entry -> (shape, dtype)
        The static shape and dtype of an outer entry (the capture placeholder's).

    Returns
    -------
    list of NodeEntry: ``outputs`` in the rebuilt subgraph.
    """
    order = _dfs_postorder([e.node for e in outputs])
    written = {node.inputs[i].node for node in order if node in made and node.op is not None
               for i in node.attr_list("FMutateInputs")}
    own = set(inputs)
    rebuilt: dict[Node, Node] = {}

    def entry(e: NodeEntry) -> NodeEntry:
        if e.node in rebuilt:
            return NodeEntry(rebuilt[e.node], e.index)
        if e.node in own or e.node in written or (e.node in made and (
                e.node.op is not None or e.node.kind == "placeholder")):
            return e  # a variable made inside but only read is captured, as one made outside
        if e not in captures:  # read from outside: a capture, through a placeholder
            shape, dtype = describe(e)
            captures[e] = placeholder_like(graph, "capture", shape, dtype)
        return NodeEntry(captures[e], 0)

    for node in order:
        if node not in made or node.op is None:
            continue
        inputs_now = [entry(e) for e in node.inputs]
        controls = [rebuilt.get(c, c) for c in node.control_deps if c in made]
        if inputs_now != node.inputs or controls != node.control_deps:
            rebuilt[node] = node.with_edges(inputs_now, controls)
            for index in range(node.num_outputs()):  # what set_shape said of it
                hint = graph.shape_hints.get(NodeEntry(node, index))
                if hint is not None:
                    graph.shape_hints[NodeEntry(rebuilt[node], index)] = hint
    return [entry(e) for e in outputs]


def infer_shapes(subgraph: Subgraph, in_shapes) -> list:
    """The shapes of ``subgraph``'s outputs when its inputs have ``in_shapes`` (None where
    unknown), by the InferShape pass over the subgraph; None where they stay unknown."""
    key = tuple(None if s is None else tuple(s) for s in in_shapes)
    if key in subgraph.shapes_inferred:
        return list(subgraph.shapes_inferred[key])
    graph = Graph(list(subgraph.outputs), {"shape_inputs": {
        node: shape for node, shape in zip(subgraph.inputs, in_shapes) if shape is not None}})
    inferred = apply_passes(graph, ["InferShape"])
    shapes, indexed = inferred.attrs["shape"], inferred.indexed
    if len(subgraph.shapes_inferred) >= 64:  # a few shapes per subgraph in practice
        subgraph.shapes_inferred.clear()
    subgraph.shapes_inferred[key] = [shapes[indexed.entry_id(e)] for e in subgraph.outputs]
    return list(subgraph.shapes_inferred[key])
