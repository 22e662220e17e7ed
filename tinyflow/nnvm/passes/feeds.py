"""CutFeeds: a tensor fed by ``feed_dict`` that is not a placeholder becomes a graph input.

TensorFlow lets any tensor be fed (an LSTM's state, a decoder's ``z``, ``x / 255.``): the fed
value replaces the tensor for that run, and what only its producers needed does not run, nor
needs feeding.  Here the session gives each fed entry an input node of its own, a placeholder
standing for it (``graph.attrs["fed_entries"]``: ``{NodeEntry: input Node}``), and this pass
makes every reader of the entry, and a fetch of it, read that input instead.  An op that
mutates the fed entry (an assign to a fed variable) keeps its variable: only reads are fed.
"""
from __future__ import annotations

from ..graph import Graph, register_pass, rewrite
from ..symbol import NodeEntry

__all__ = ["cut_feeds"]


@register_pass("CutFeeds", requires=("fed_entries",))
def cut_feeds(graph: Graph) -> Graph:
    """Every read of a fed entry reads its input node (``fed_entries``) instead.

    Nodes are never changed: readers of a fed entry, and the nodes downstream of them, are
    rebuilt (:func:`~tinyflow.nnvm.graph.rewrite`); the producers of a fed entry drop out of
    the graph unless something else reads them.  Runs before shapes are inferred: no per-entry
    attribute is carried.
    """
    fed = {entry: NodeEntry(node, 0) for entry, node in graph.attrs["fed_entries"].items()}
    if not fed:
        return graph

    def read_fed(node):
        mutated = node.attr_list("FMutateInputs")
        inputs = [e if i in mutated else fed.get(e, e) for i, e in enumerate(node.inputs)]
        return None if inputs == node.inputs else (inputs, node.control_deps)

    cut = rewrite(graph, read_fed, carried=())
    outputs = [fed.get(old, new) for old, new in zip(graph.outputs, cut.outputs)]
    return Graph(outputs, cut.attrs)
