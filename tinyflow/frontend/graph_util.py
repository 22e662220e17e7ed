"""``tf.graph_util`` (freezing a graph), ``tf.import_graph_def`` and ``tf.train.write_graph`` on
TinyFlow's graph format (``tf.GraphDef``: :mod:`tinyflow.nnvm.graph_def`, what
``graph.as_graph_def()`` gives).

A graph def read is untrusted: it goes through LoadJSON's checks (nothing in it can run code:
an op's body is its registration's), and every name it is asked about is checked before the
current graph changes; anything wrong is an error naming it, the graph left as it was.
"""
from __future__ import annotations

import json
import os
import tempfile

import numpy as np

from ..nnvm.errors import GraphError
from ..nnvm.graph import Graph, apply_passes, rewrite
from ..nnvm.graph_def import GraphDef, load
from ..nnvm.symbol import NodeEntry, Symbol, current_context
from .unsupported import unsupported

__all__ = ["convert_variables_to_constants", "extract_sub_graph", "import_graph_def"]


def _checked(graph_def) -> GraphDef:
    if not isinstance(graph_def, GraphDef):
        raise TypeError(f"graph_def must be a GraphDef (graph.as_graph_def()), got "
                        f"{type(graph_def).__name__}")
    return graph_def


def _save(heads) -> GraphDef:
    """The nodes ``heads`` reach, every output of each a head (so each is imported)."""
    nodes = Graph(heads).indexed.nodes
    every = [NodeEntry(n, i) for n in nodes for i in range(n.num_outputs())]
    return GraphDef(apply_passes(Graph(every), ["SaveJSON"]).attrs["json"])


def extract_sub_graph(graph_def, dest_nodes) -> GraphDef:
    """The nodes ``dest_nodes`` (names) need: themselves and what they read or wait for,
    through inputs and control inputs.  A name not in the graph is an AssertionError (TF's)."""
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be a list.")
    nodes = {n.name: n for n in load(str(_checked(graph_def))).indexed.nodes}
    for name in dest_nodes:
        if name not in nodes:
            raise AssertionError(f"{name} is not in graph")
    return _save([NodeEntry(nodes[name], i) for name in dest_nodes
                  for i in range(nodes[name].num_outputs())])


def _constant_spec(spec: dict, value: np.ndarray) -> dict:
    exact = value.dtype.kind in "iub"
    flat = [int(v) for v in value.ravel()] if exact else [float(v) for v in value.ravel()]
    return {**spec, "op": "constant", "inputs": [], "control_deps": [],
            "attrs": {"value": flat, "shape": list(value.shape), "dtype": spec["attrs"]["dtype"]}}


def convert_variables_to_constants(sess, input_graph_def, output_node_names,
                                   variable_names_whitelist=None,
                                   variable_names_blacklist=None) -> GraphDef:
    """The graph ``output_node_names`` need (:func:`extract_sub_graph`), each variable in it a
    constant holding its value in ``sess`` (those of the whitelist only, when given, none of
    the blacklist): a frozen graph, which runs without a checkpoint.

    Raises
    ------
    AssertionError
        An output name not in the graph.
    BindError
        A variable ``sess`` has not initialised (named, as any read of it).
    """
    doc = json.loads(str(extract_sub_graph(input_graph_def, output_node_names)))
    for k, spec in enumerate(doc["nodes"]):
        name = spec["name"]
        if (spec["op"] != "null" or spec["attrs"].get("kind", "variable") != "variable"
                or (variable_names_whitelist is not None and name not in variable_names_whitelist)
                or (variable_names_blacklist is not None and name in variable_names_blacklist)):
            continue
        value = np.asarray(sess.run(sess.graph.get_tensor_by_name(name + ":0")))
        doc["nodes"][k] = _constant_spec(spec, value)
    text = json.dumps(doc)
    load(text)  # a frozen graph that loads, or the error now
    return GraphDef(text)


def _entry_name(name: str, where: str) -> tuple:
    node, colon, index = name.rpartition(":")
    if not colon:
        return name, 0
    if not index.isdigit():
        raise ValueError(f"{where}: {name!r} is not a tensor name ('<node>:<output>')")
    return node, int(index)


def _map_inputs(graph: Graph, input_map: dict, prefix: str) -> Graph:
    """``graph`` with the entries ``input_map`` names (in the graph def's names) read from the
    tensors it gives instead."""
    nodes = {n.name: n for n in graph.indexed.nodes}
    mapped, missing = {}, []
    for key, value in input_map.items():
        if not isinstance(key, str) or not isinstance(value, Symbol) or len(value.outputs) != 1:
            raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
        name, index = _entry_name(key, "input_map")
        node = nodes.get(prefix + name)
        if node is None or index >= node.num_outputs():
            missing.append(key)
            continue
        declared = node.attrs.get("dtype") if node.op is None else None
        if declared is not None and declared != value.dtype.name:
            raise ValueError(f"input_map: {key} is {declared} in the graph def, but it was "
                             f"given {value.name} of type {value.dtype.name}")
        mapped[NodeEntry(node, index)] = value.outputs[0]
    if missing:
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: {missing}")

    def change(node):
        if not any(e in mapped for e in node.inputs):
            return None
        return [mapped.get(e, e) for e in node.inputs], node.control_deps
    return rewrite(graph, change)


def _returned(names, nodes: dict, prefix: str) -> list:
    found = []
    for name in names:
        node_name, index = _entry_name(name, "return_elements")
        node = nodes.get(prefix + node_name)
        if node is None or index >= node.num_outputs():
            raise ValueError(f"Requested return_element {name!r} not found in graph_def.")
        found.append(Symbol([NodeEntry(node, index)]) if ":" in name else Symbol(
            [NodeEntry(node, i) for i in range(node.num_outputs())], is_operation=True))
    return found


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None,
                     op_dict=None, producer_op_list=None):
    """Add the nodes of ``graph_def`` to the current graph, named ``<name>/<their name>``
    (``name`` default ``"import"``, made unique as a name scope; ``""``: their own names).

    Parameters
    ----------
    input_map : dict, optional
        ``{"x:0": tensor}``: nodes of the graph def reading ``x:0`` read ``tensor`` instead.
    return_elements : list of str, optional
        Names in the graph def: ``"y:0"`` gives the tensor, ``"train"`` the operation.

    Returns
    -------
    The tensors and operations of ``return_elements``, or None without it.

    Raises
    ------
    GraphError
        The graph def is malformed (LoadJSON's checks), or a node's name is taken already.
    ValueError
        A name in ``input_map`` or ``return_elements`` not in the graph def.
    """
    text = str(_checked(graph_def))
    context = current_context()
    context.check_open()
    load(text)  # a malformed document is LoadJSON's GraphError, before anything is named
    with context.name_scope("import" if name is None else name) as prefix:
        doc = json.loads(text)
    for spec in doc["nodes"]:
        spec["name"] = prefix + spec["name"]
    known = set(context.nodes_by_name.values())
    graph = _map_inputs(load(json.dumps(doc)), dict(input_map or {}), prefix)
    nodes = {n.name: n for n in graph.indexed.nodes if n not in known}
    taken = sorted(set(nodes) & set(context.nodes_by_name))
    if taken:
        raise GraphError(f"import_graph_def: the current graph already has a node named "
                         f"{taken[0]!r}; import it under another name=")
    found = _returned(return_elements or [], nodes, prefix)
    for node_name, node in nodes.items():  # nothing changed before every check passed
        context.nodes_by_name[node_name] = node
        context.claim_name(node_name)
    return None if return_elements is None else found


def write_graph(graph_or_graph_def, logdir, name, as_text=True) -> str:
    """``tf.train.write_graph`` (``tf.io.write_graph``): a graph (its ``as_graph_def()``) or
    graph def written to ``logdir/name``, making ``logdir`` if needed, in one atomic replace;
    returns the path, as TF's.

    Both forms are TinyFlow's graph format: ``as_text`` its JSON document indented, else
    compact (``GraphDef.SerializeToString()``'s bytes), either read back by
    ``GraphDef.ParseFromString``.  TensorFlow writes a ``GraphDef`` protocol buffer instead, its
    text format (``node { name: "c" op: "Const" ... }``) or its binary wire format, of
    TensorFlow's ops: TinyFlow writes neither, nor reads them."""
    graph_def = graph_or_graph_def
    if hasattr(graph_def, "as_graph_def"):
        graph_def = graph_def.as_graph_def()
    text = str(_checked(graph_def))
    logdir = os.fspath(logdir)
    path = os.path.join(logdir, os.fspath(name))
    os.makedirs(logdir or ".", exist_ok=True)
    if as_text:
        text = json.dumps(json.loads(text), indent=1)
    handle, temporary = tempfile.mkstemp(dir=logdir or ".", prefix=".tmp_graph")
    try:
        with os.fdopen(handle, "w") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    return path


def __getattr__(name):
    raise unsupported("tf.graph_util.", "tinyflow.graph_util", name, {"tf.graph_util.": __all__})
