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
    """Rebuild a graph from ``graph.attrs["json"]`` (ops are looked up in the registry).

    Malformed text (not JSON, nested too deeply, a field missing or of the wrong type, an input
    naming a node not before it or an output it does not have, an unknown op) is a GraphError
    saying ``bad graph JSON`` and where."""
    try:
        doc = json.loads(graph.attrs["json"])
    except (ValueError, TypeError, RecursionError) as err:
        raise GraphError(f"bad graph JSON: it does not parse ({type(err).__name__}: "
                         f"{str(err)[:200]})") from None
    try:
        return _build(doc, graph)
    except RecursionError:
        raise GraphError("bad graph JSON: its values nest too deeply") from None


def _build(doc, graph: Graph) -> Graph:
    _check(isinstance(doc, dict), "the document", "an object")
    specs = doc.get("nodes")
    _check(isinstance(specs, list), "'nodes'", "a list")
    nodes: list[Node] = []
    for i, spec in enumerate(specs):
        where = f"node {i}"
        _check(isinstance(spec, dict), where, "an object")
        where = f"node {i} ({spec.get('name')!r})"
        _check(isinstance(spec.get("name"), str), f"{where} 'name'", "a string")
        _check(isinstance(spec.get("op"), str), f"{where} 'op'", "a string")
        try:
            op = None if spec["op"] == "null" else Op.get(spec["op"])
        except KeyError as err:
            raise GraphError(f"bad graph JSON at {where}: {err.args[0]}") from None
        inputs = [_entry(nodes, e, f"{where} input") for e in _list(spec, "inputs", where)]
        deps = [nodes[_index(n, len(nodes), f"{where} control_dep {n!r}")]
                for n in _list(spec, "control_deps", where)]
        attrs = spec.get("attrs", {})
        _check(isinstance(attrs, dict), f"{where} 'attrs'", "an object")
        source = spec.get("source", "<json>")
        _check(isinstance(source, str), f"{where} 'source'", "a string")
        nodes.append(Node(op, spec["name"], {k: _from_json_value(v) for k, v in attrs.items()},
                          inputs, deps, source))
    heads = [_entry(nodes, e, "head") for e in _list(doc, "heads", "the document")]
    attrs = {k: v for k, v in graph.attrs.items() if k != "json"}
    saved = doc.get("attrs", {})
    _check(isinstance(saved, dict), "'attrs'", "an object")
    for key, value in saved.items():
        _check(isinstance(value, list), f"graph attribute '{key}'", "a list")
        attrs[key] = [_from_json_value(v) if isinstance(v, list) else v for v in value] \
            if key == "shape" else value
    return Graph(heads, attrs)


def _check(condition: bool, what: str, expected: str) -> None:
    if not condition:
        raise GraphError(f"bad graph JSON: {what} must be {expected}")


def _list(spec: dict, key: str, where: str) -> list:
    value = spec.get(key, [])
    _check(isinstance(value, list), f"{where} '{key}'", "a list")
    return value


def _index(value, limit: int, what: str) -> int:
    """``value`` as an index into the ``limit`` nodes before (bools and negatives refused)."""
    _check(isinstance(value, int) and not isinstance(value, bool) and 0 <= value < limit,
           what, f"the index of one of the {limit} node(s) before it")
    return value


def _entry(nodes: list, value, what: str) -> NodeEntry:
    """``[node index, output index]`` as the NodeEntry it names."""
    _check(isinstance(value, list) and len(value) == 2, f"{what} {value!r}",
           "[node index, output index]")
    node = nodes[_index(value[0], len(nodes), f"{what} {value!r}")]
    outputs = node.num_outputs()
    _check(isinstance(value[1], int) and not isinstance(value[1], bool)
           and 0 <= value[1] < outputs, f"{what} {value!r}",
           f"an output of node '{node.name}' (it has {outputs})")
    return NodeEntry(node, value[1])
