"""``tf.GraphDef`` in TinyFlow's own format: the SaveJSON document of a graph's nodes
(TensorFlow's GraphDef is a protobuf of TensorFlow's ops, which TinyFlow does not read or
write).  ``Graph.as_graph_def()`` makes one; ``SerializeToString`` gives its bytes,
``ParseFromString`` reads them back, untrusted: through LoadJSON's checks (nothing in a document
ever runs code), at most ``MAX_GRAPH_DEF_BYTES``; anything wrong is a GraphError.
"""
from __future__ import annotations

import json
from typing import NamedTuple

from .errors import GraphError
from .graph import Graph, apply_passes

__all__ = ["GraphDef", "NodeDef"]

MAX_GRAPH_DEF_BYTES = 1 << 30
_EMPTY = json.dumps({"nodes": [], "arg_nodes": [], "heads": [], "attrs": {}})


class NodeDef(NamedTuple):
    """A node as TensorFlow's NodeDef names it: its name, its op type (``MatMul``,
    ``Placeholder``...) and inputs (``"x"``, ``"split:1"``, ``"^init"`` for a control input)."""

    name: str
    op: str
    input: list


class GraphDef:
    """A graph's nodes as a document (``str()`` is its JSON text).

    Parameters
    ----------
    text : str, optional
        A SaveJSON document; default an empty graph.
    """

    def __init__(self, text: str | None = None) -> None:
        self._text = _EMPTY if text is None else text

    def ParseFromString(self, data) -> int:
        """Read ``data`` (bytes or str, as SerializeToString or ``as_text`` wrote it); its
        graph is checked by LoadJSON.  Returns its length."""
        if not isinstance(data, (bytes, bytearray, str)):
            raise TypeError(f"GraphDef.ParseFromString takes bytes, got {type(data).__name__}")
        if len(data) > MAX_GRAPH_DEF_BYTES:
            raise GraphError(f"bad graph def: over {MAX_GRAPH_DEF_BYTES} bytes")
        try:
            text = data.decode("utf-8") if not isinstance(data, str) else data
        except UnicodeDecodeError as err:
            raise GraphError(f"bad graph def: not TinyFlow's graph format ({err})") from None
        load(text)  # the checks, before anything changes
        self._text = text
        return len(data)

    def SerializeToString(self) -> bytes:
        """The document's bytes."""
        return self._text.encode("utf-8")

    def ByteSize(self) -> int:
        return len(self.SerializeToString())

    def __str__(self) -> str:
        return self._text

    @property
    def node(self) -> list:
        """Its nodes as :class:`NodeDef`, in the document's order."""
        return [NodeDef(n.name, n.type, [_input_name(e) for e in n.inputs]
                        + ["^" + c.name for c in n.control_deps]) for n in load(self._text).indexed.nodes]


def load(text: str) -> Graph:
    """The graph of a document (its nodes made anew, checked by LoadJSON)."""
    return apply_passes(Graph([], {"json": text}), ["LoadJSON"])


def _input_name(entry) -> str:
    return entry.node.name if entry.index == 0 else f"{entry.node.name}:{entry.index}"
