"""``tf.train.export_meta_graph`` / ``import_meta_graph``: a graph, its variables and collections
in a ``.meta`` file, in TinyFlow's own format (TensorFlow's MetaGraphDef is a protobuf of
TensorFlow's ops, which TinyFlow does not read or write).

The file is JSON::

    {"tinyflow_meta_graph": 1,
     "graph": "<the graph's SaveJSON text: every node of the graph>",
     "variables": [{"name", "initial_value": [node, output], "initial_assign": [node, output],
                    "trainable", "default", "save_slice_info": [a partitioned variable's name,
                    its shape, the shard's offset and shape] (shards only)}, ...],
     "collections": {key: [{"variable": name} or {"entries": [[node, output]...],
                                                  "operation": bool}, ...]},
     "saver": {name in the checkpoint: variable name}}  (TF's SaverDef: the writing Saver's)

Collections hold variables, tensors and operations; other values in a collection are not
written.  A file read is untrusted: the graph goes through LoadJSON's checks (nothing in it can
run code: an op's body is its registration's), and every name, index and flag of the rest is
checked; anything wrong is a GraphError naming the file and what is wrong, and the current
graph is left as it was.
"""
from __future__ import annotations

import json
import os
from typing import NamedTuple

from ..nnvm.errors import GraphError
from ..nnvm.graph import Graph, apply_passes
from ..nnvm.symbol import NodeEntry, Symbol, current_context
from ..nnvm.variables import Variable
from .partitioned_variables import SaveSliceInfo

__all__ = ["ImportedGraph", "export_meta_graph", "import_graph", "read_meta_graph"]

VERSION = 1
MAX_META_BYTES = 1 << 30


def _entry(entry: NodeEntry) -> list:
    return [entry.node.name, entry.index]


def _variable_doc(var) -> dict:
    info = getattr(var, "save_slice_info", None)  # a partitioned variable's shard
    return {"name": var.op.name, "initial_value": _entry(var.initial_value.outputs[0]),
            "initial_assign": _entry(var.initial_assign.outputs[0]),
            "trainable": bool(var.trainable), "default": bool(var.default),
            **({} if info is None else {"save_slice_info": [
                info.full_name, list(info.full_shape), list(info.var_offset),
                list(info.var_shape)]})}


def _unwritable(context) -> str | None:
    """Which node's attribute JSON cannot write (a Python object), said; None if none is."""
    for node in context.nodes_by_name.values():
        for key, value in node.attrs.items():
            try:
                json.dumps(value)
            except (TypeError, ValueError):
                op = "a variable" if node.op is None else f"op '{node.op.name}'"
                return (f"node '{node.name}' ({op}) holds a Python object in its attribute "
                        f"'{key}' ({type(value).__name__}), which a graph document cannot hold")
    return None


def export_meta_graph(filename=None, collection_list=None, graph=None, saver_names=None,
                      **kwargs) -> dict:
    """Write the current graph (or ``graph``), its variables and its collections (or those of
    ``collection_list``) to ``filename`` when given; return the document written.
    ``saver_names`` (``{name in the checkpoint: variable}``, a Saver's) is kept for the Saver
    ``import_meta_graph`` returns.

    GraphError when a node cannot be written (a ``tf.py_func``'s Python function)."""
    context = graph or current_context()
    variables = {id(v): v for v in context.variables}
    heads = [NodeEntry(node, i) for node in context.nodes_by_name.values()
             for i in range(node.num_outputs())]
    keys = context.collections if collection_list is None else collection_list
    collections = {}
    for key in keys:
        items = []
        for item in context.collections.get(key, ()):
            if id(item) in variables:
                items.append({"variable": item.op.name})
            elif isinstance(item, Symbol):
                items.append({"entries": [_entry(e) for e in item.outputs],
                              "operation": bool(getattr(item, "is_operation", False))})
        collections[str(key)] = items
    try:
        text = apply_passes(Graph(heads), ["SaveJSON"]).attrs["json"]
    except (TypeError, ValueError) as err:
        raise GraphError(f"cannot write the meta graph: {_unwritable(context) or err}") from None
    doc = {"tinyflow_meta_graph": VERSION, "graph": text,
           "variables": [_variable_doc(v) for v in context.variables],
           "collections": collections}
    if saver_names is not None:
        doc["saver"] = {key: var.op.name for key, var in saver_names.items()}
    if filename is not None:
        with open(os.fspath(filename), "w") as file:
            json.dump(doc, file)
    return doc


class ImportedGraph(NamedTuple):
    """A meta graph read and checked, not yet in any graph (:func:`read_meta_graph`)."""

    nodes: dict
    variables: dict
    collections: dict
    saver: dict | None

    def add_to(self, context) -> None:
        """Put the nodes, variables and collections into ``context`` (a ``tf.Graph``)."""
        for name, node in self.nodes.items():
            context.nodes_by_name[name] = node
            context.claim_name(name)
        for var in self.variables.values():
            context.variables.append(var)
        for key, items in self.collections.items():
            for item in items:
                context.add_to_collection(key, item)


def import_graph(meta_graph_or_file, import_scope=None) -> tuple[list, dict | None]:
    """Rebuild the graph of a ``.meta`` file (or a document ``export_meta_graph`` returned) in
    the current graph, with its variables and collections; return its variables and the
    ``{name in the checkpoint: variable}`` of the Saver that wrote it (None if none did).

    Raises
    ------
    GraphError
        The file is not a meta graph TinyFlow wrote, or is malformed (what is wrong is named),
        or the current graph already has a node of one of its names.
    """
    imported = read_meta_graph(meta_graph_or_file, import_scope)
    imported.add_to(current_context())
    return list(imported.variables.values()), imported.saver


def read_meta_graph(meta_graph_or_file, import_scope=None) -> ImportedGraph:
    """The nodes (made in the current graph, but not yet in it: ``ImportedGraph.add_to``),
    variables, collections and saver names of a ``.meta`` file or document, every part
    checked; the errors are :func:`import_graph`'s."""
    if import_scope:
        raise ValueError("import_meta_graph(import_scope=...) is not supported by TinyFlow")
    where = "the meta graph"
    doc = meta_graph_or_file
    if not isinstance(doc, dict):
        where = f"meta graph '{os.fspath(doc)}'"
        doc = _read(os.fspath(doc), where)
    _check(isinstance(doc, dict) and doc.get("tinyflow_meta_graph") == VERSION, where,
           "not a TinyFlow meta graph (version 1)")
    _check(isinstance(doc.get("graph"), str), where, "'graph' is not a string")
    context = current_context()
    graph = apply_passes(Graph([], {"json": doc["graph"]}), ["LoadJSON"])
    nodes = {node.name: node for node in graph.indexed.nodes}
    taken = sorted(set(nodes) & set(context.nodes_by_name))
    _check(not taken, where, f"the current graph already has a node named {taken[:1]}")
    variables = dict(_variable(spec, nodes, where) for spec in _list(doc, "variables", where))
    collections = {key: [_collection_item(item, nodes, variables, where) for item in
                         _list(doc["collections"], key, where)]
                   for key in _dict(doc, "collections", where)}
    saver = doc.get("saver")
    if saver is not None:
        _check(isinstance(saver, dict) and all(isinstance(k, str) and k and _named(v, variables)
                                               for k, v in saver.items()),
               where, "'saver' does not map checkpoint names to variables of the graph")
        saver = {key: variables[name] for key, name in saver.items()}
    return ImportedGraph(nodes, variables, collections, saver)


def _read(path: str, where: str) -> dict:
    try:
        if os.path.getsize(path) > MAX_META_BYTES:
            raise GraphError(f"{where}: over {MAX_META_BYTES} bytes")
        with open(path) as file:
            return json.load(file)
    except (OSError, ValueError, RecursionError) as err:
        raise GraphError(f"cannot read {where}: {type(err).__name__}: {err}") from None


def _check(condition: bool, where: str, problem: str) -> None:
    if not condition:
        raise GraphError(f"bad {where}: {problem}")


def _list(doc: dict, key, where: str) -> list:
    value = doc.get(key, [])
    _check(isinstance(value, list), where, f"{key!r} is not a list")
    return value


def _dict(doc: dict, key, where: str) -> dict:
    value = doc.get(key, {})
    _check(isinstance(value, dict), where, f"{key!r} is not an object")
    return value


def _named(name, table: dict) -> bool:
    """Whether ``name``, any JSON value (a list is unhashable), is a key of ``table``."""
    return isinstance(name, str) and name in table


def _node_entry(value, nodes: dict, where: str) -> NodeEntry:
    _check(isinstance(value, list) and len(value) == 2 and _named(value[0], nodes)
           and isinstance(value[1], int) and not isinstance(value[1], bool)
           and 0 <= value[1] < nodes[value[0]].num_outputs(), where,
           f"{str(value)[:100]} is not an output of a node of the graph")
    return NodeEntry(nodes[value[0]], value[1])


def _variable(spec, nodes: dict, where: str):
    """The Variable of ``spec`` over the imported node it names (its initial value and
    initialising assign are imported nodes too)."""
    _check(isinstance(spec, dict) and _named(spec.get("name"), nodes)
           and nodes[spec["name"]].op is None and nodes[spec["name"]].kind == "variable",
           where, f"variable {str(spec)[:100]} names no variable node of the graph")
    var = Variable.__new__(Variable)
    Symbol.__init__(var, [NodeEntry(nodes[spec["name"]], 0)])
    var.initial_value = Symbol([_node_entry(spec.get("initial_value"), nodes, where)])
    var.initial_assign = Symbol([_node_entry(spec.get("initial_assign"), nodes, where)])
    var.trainable, var.default = bool(spec.get("trainable")), bool(spec.get("default"))
    info = spec.get("save_slice_info")
    if info is not None:
        _check(_slice_info_fits(info, nodes[spec["name"]].attrs.get("shape")), where,
               f"variable {spec['name']!r}: save_slice_info {str(info)[:100]} is not "
               f"[full name, full shape, offset, shape] of a slice of the variable's shape")
        var.save_slice_info = SaveSliceInfo(info[0], *(list(part) for part in info[1:]))
    return spec["name"], var


def _slice_info_fits(info, shape) -> bool:
    """Whether ``info`` (JSON) is a shard's place in its full variable, of ``shape``."""
    if not (isinstance(info, list) and len(info) == 4 and isinstance(info[0], str) and info[0]
            and all(isinstance(part, list) and len(part) == len(info[1]) <= 64 and all(
                type(d) is int and 0 <= d < 2 ** 62 for d in part) for part in info[1:])):
        return False
    full, offset, size = info[1:]
    return all(o + n <= f for f, o, n in zip(full, offset, size)) and (
        shape is None or list(shape) == size)


def _collection_item(item, nodes: dict, variables: dict, where: str):
    if isinstance(item, dict) and "variable" in item:
        _check(_named(item["variable"], variables), where,
               f"collection item {str(item)[:100]} names no variable")
        return variables[item["variable"]]
    _check(isinstance(item, dict), where, f"collection item {str(item)[:100]}")
    entries = [_node_entry(e, nodes, where) for e in _list(item, "entries", where)]
    return Symbol(entries, is_operation=bool(item.get("operation")))
