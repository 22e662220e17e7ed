"""SaveJSON / LoadJSON: a graph to JSON text and back (NNVM's layout: nodes, arg_nodes, heads)."""
from __future__ import annotations

import json

from ..dtypes import TORCH_NAMES
from ..errors import GraphError
from ..graph import Graph, register_pass
from ..op import Op
from ..subgraph import Subgraph
from ..symbol import Node, NodeEntry
from .serialize_subgraphs import SubgraphReader, nodes_in_order, subgraph_to_json

__all__ = ["load_json", "save_json"]

# Per-entry graph attributes worth keeping in the file (plain lists of JSON values).
_SAVED_ATTRS = ("shape", "dtype", "storage_id", "storage_size")
# Node attributes holding code (a _fused node's): never taken from a document
CODE_ATTRS = ("source", "cuda_source", "code_seal")
# At most this many inputs or outputs per node, and entries per document: a bind keeps a
# shape, dtype, storage and tensor per entry (about a KiB), so a document's bookkeeping stays
# under about a GiB however its counts are written (split num=10**9 is 30 bytes of JSON)
MAX_ENTRIES = 1 << 20
MAX_RANK = 64  # a graph input's declared rank (torch's most)


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
    """Provide ``json``: the graph's nodes (and its subgraphs', each before the node holding
    it: serialize_subgraphs), inputs, heads and its per-entry attributes."""
    indexed = graph.indexed
    order = nodes_in_order(graph.outputs)
    ids = {node: i for i, node in enumerate(order)}
    nodes = [{
        "op": "null" if node.op is None else node.op.name,
        "name": node.name,
        "attrs": {k: subgraph_to_json(node, k, ids) if isinstance(v, Subgraph)
                  else _to_json_value(v) for k, v in node.attrs.items()},
        "inputs": [[ids[e.node], e.index] for e in node.inputs],
        "control_deps": [ids[d] for d in node.control_deps],
        "source": node.source,
    } for node in order]
    doc = {
        "nodes": nodes,
        "arg_nodes": [ids[indexed.nodes[i]] for i in indexed.input_nodes],
        "heads": [[ids[e.node], e.index] for e in graph.outputs],
        "attrs": {k: _to_json_value(graph.attrs[k]) for k in _SAVED_ATTRS if k in graph.attrs},
    }
    return graph.with_attrs(json=json.dumps(doc, indent=1))


@register_pass("LoadJSON", requires=("json",))
def load_json(graph: Graph) -> Graph:
    """Rebuild a graph from ``graph.attrs["json"]`` (ops are looked up in the registry).

    Malformed text (not JSON, nested too deeply, a field missing or of the wrong type, an input
    naming a node not before it or an output it does not have, an unknown op) is a GraphError
    saying ``bad graph JSON`` and where.  So are an op made only by a pass (``TInternal``:
    ``_fused``...), a node attribute holding code (``CODE_ATTRS``: nothing in a document is
    ever run; an op's Lua body is its registration's), a node its op's ``FCheckNode`` refuses
    (a max pool's gradient reading another tensor as its argmax), and counts of inputs or
    outputs that are not ints, not what the node lists, or over ``MAX_ENTRIES``; and subgraphs
    whose inputs are not placeholders, nest too deeply or would bind too much
    (serialize_subgraphs)."""
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
    entries = 0
    subgraphs = SubgraphReader(_check, _entry, _index, MAX_ENTRIES)
    for i, spec in enumerate(specs):
        where = f"node {i}"
        _check(isinstance(spec, dict), where, "an object")
        where = f"node {i} ({spec.get('name')!r})"
        _check(isinstance(spec.get("name"), str), f"{where} 'name'", "a string")
        _check(isinstance(spec.get("op"), str), f"{where} 'op'", "a string")
        op = _op(spec["op"], where)
        inputs = [_entry(nodes, e, f"{where} input") for e in _list(spec, "inputs", where)]
        deps = [nodes[_index(n, len(nodes), f"{where} control_dep {n!r}")]
                for n in _list(spec, "control_deps", where)]
        attrs = spec.get("attrs", {})
        _check(isinstance(attrs, dict), f"{where} 'attrs'", "an object")
        code = sorted(set(attrs) & set(CODE_ATTRS))
        _check(not code, f"{where} attribute {code[0] if code else ''!r}",
               "absent (it holds code, which is never taken from a document)")
        source = spec.get("source", "<json>")
        _check(isinstance(source, str), f"{where} 'source'", "a string")
        attrs = subgraphs.read(op, {k: _from_json_value(v) for k, v in attrs.items()}, nodes,
                               where)
        if op is None:
            _check_input(attrs, where)
        entries += _counts(op, attrs, len(inputs), where)
        _check(entries <= MAX_ENTRIES, f"the document's entries (to {where})",
               f"at most {MAX_ENTRIES}")
        nodes.append(Node(op, spec["name"], attrs, inputs, deps, source))
        try:
            refused = op is not None and op.attr("FCheckNode") and op.attr("FCheckNode")(nodes[-1])
        except (LookupError, TypeError, ValueError) as err:  # attributes of the wrong type
            refused = f"{type(err).__name__}: {str(err)[:200]}"
        _check(not refused, f"{where} op {spec['op']!r}", f"one that can run: {refused}")
        subgraphs.admit(nodes[-1], where)
    heads = [_entry(nodes, e, "head") for e in _list(doc, "heads", "the document")]
    attrs = {k: v for k, v in graph.attrs.items() if k != "json"}
    saved = doc.get("attrs", {})
    _check(isinstance(saved, dict), "'attrs'", "an object")
    for key, value in saved.items():
        _check(isinstance(value, list), f"graph attribute '{key}'", "a list")
        attrs[key] = [_from_json_value(v) if isinstance(v, list) else v for v in value] \
            if key == "shape" else value
    return Graph(heads, attrs)


def _op(name: str, where: str):
    """The registered op ``name`` (None for "null"): one a user may write, not a pass's own."""
    try:
        op = None if name == "null" else Op.get(name)
    except KeyError as err:
        raise GraphError(f"bad graph JSON at {where}: {err.args[0]}") from None
    made_by = None if op is None else op.attr("TInternal")
    _check(made_by is None, f"{where} op {name!r}",
           f"one a user may write (it is made only by the {made_by} pass)")
    held = None if op is None else op.attr("TPythonAttrs")
    _check(not held, f"{where} op {name!r}", f"one of plain attributes ({held} hold Python objects)")
    return op


def _counts(op, attrs: dict, listed: int, where: str) -> int:
    """The node's number of outputs, checked with its number of inputs against what its
    attributes say, before anything of that size is built."""
    if op is None:
        return 1
    try:
        num_inputs, num_outputs = op.num_inputs(attrs), op.num_outputs(attrs)
    # an attribute missing or of the wrong type: the op's own rule says so
    except (LookupError, TypeError, ValueError, ArithmeticError, AttributeError) as err:
        raise GraphError(f"bad graph JSON at {where}: its attributes do not give its numbers "
                         f"of inputs and outputs ({type(err).__name__}: "
                         f"{str(err)[:200]})") from None
    for what, count in (("number of inputs", num_inputs), ("number of outputs", num_outputs)):
        _check(isinstance(count, int) and not isinstance(count, bool)
               and 0 <= count <= MAX_ENTRIES, f"{where} {what} {str(count)[:50]}",
               f"an int from 0 to {MAX_ENTRIES}")
    _check(listed == num_inputs, f"{where} 'inputs' ({listed})",
           f"as many as its attributes say ({num_inputs})")
    return num_outputs


def _check_input(attrs: dict, where: str) -> None:
    """A placeholder's or variable's dtype (a name) and shape (null, or sizes), as bound."""
    dtype, shape = attrs.get("dtype", "float32"), attrs.get("shape")
    _check(isinstance(dtype, str) and (dtype in TORCH_NAMES or dtype == "string"),
           f"{where} 'dtype' {str(dtype)[:50]!r}", "a dtype's name")
    _check(shape is None or isinstance(shape, tuple) and len(shape) <= MAX_RANK and all(
        d is None or type(d) is int and -1 <= d < 2 ** 62 for d in shape),
        f"{where} 'shape' {str(shape)[:50]}", f"null or at most {MAX_RANK} sizes (-1: unknown)")


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
