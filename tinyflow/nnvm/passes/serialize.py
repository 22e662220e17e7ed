"""SaveJSON / LoadJSON: a graph to JSON text and back (NNVM's layout: nodes, arg_nodes, heads)."""
from __future__ import annotations

import json

from ..errors import GraphError
from ..graph import Graph, register_pass
from ..op import Op
from ..symbol import Node, NodeEntry

__all__ = ["load_json", "save_json"]

# Per-entry graph attributes worth keeping in the file (plain lists of JSON values).
_SAVED_ATTRS = ("shape", "dtype", "storage_id", "storage_size")


def _to_json_value(value):
    if isinstance(value, tuple):
        return [_to_json_value(v) for v in value]
    return value


def _from_json_value(value):
    if isinstance(value, list):
        return tuple(_from_json_value(v) for v in value)
    return value


@register_pass("SaveJSON", provides=("json",))
def save_json(graph: Graph) -> Graph:
    """Provide ``json``: the graph's nodes, inputs, heads and its per-entry attributes."""
    indexed = graph.indexed
    nodes = []
    for nid, node in enumerate(indexed.nodes):
        nodes.append({
            "op": "null" if node.op is None else node.op.name,
            "name": node.name,
            "attrs": {k: _to_json_value(v) for k, v in node.attrs.items()},
            "inputs": [list(indexed.entry_node(e)) for e in indexed.input_entries[nid]],
            "control_deps": [indexed.node_id[d] for d in node.control_deps],
            "source": node.source,
        })
    doc = {
        "nodes": nodes,
        "arg_nodes": indexed.input_nodes,
        "heads": [list(indexed.entry_node(e)) for e in indexed.outputs],
        "attrs": {k: _to_json_value(graph.attrs[k]) for k in _SAVED_ATTRS if k in graph.attrs},
    }
    return graph.with_attrs(json=json.dumps(doc, indent=1))


@register_pass("LoadJSON", requires=("json",))
def load_json(graph: Graph) -> Graph:
    """Rebuild a graph from ``graph.attrs["json"]`` (ops are looked up in the registry)."""
    doc = json.loads(graph.attrs["json"])
    nodes: list[Node] = []
    for i, spec in enumerate(doc["nodes"]):
        try:
            op = None if spec["op"] == "null" else Op.get(spec["op"])
            inputs = [NodeEntry(nodes[n], idx) for n, idx in spec["inputs"]]
            deps = [nodes[n] for n in spec.get("control_deps", [])]
        except (KeyError, IndexError) as err:
            raise GraphError(f"bad graph JSON at node {i} ({spec.get('name')}): {err}") from None
        attrs = {k: _from_json_value(v) for k, v in spec.get("attrs", {}).items()}
        nodes.append(Node(op, spec["name"], attrs, inputs, deps, spec.get("source", "<json>")))
    heads = [NodeEntry(nodes[n], idx) for n, idx in doc["heads"]]
    attrs = {k: v for k, v in graph.attrs.items() if k != "json"}
    for key, value in doc.get("attrs", {}).items():
        attrs[key] = [_from_json_value(v) if isinstance(v, list) else v for v in value] \
            if key == "shape" else value
    return Graph(heads, attrs)
