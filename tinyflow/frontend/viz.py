"""Graph pictures: a graph as Graphviz DOT text, with shapes and the memory plan when asked.

``to_dot(fetch)`` draws the nodes that ``fetch`` depends on (in execution order): placeholders as
blue ellipses, variables as orange rounded boxes, ops as grey boxes and backward ops (those that
only appear in gradient graphs) as pink boxes; fetched nodes get a double border.  Each node is
labelled with its name and op.  Edges run from producer to consumer and, when ``shapes`` are
given, carry the shape InferShape finds for the entry.  ``plan=True`` also runs InferType and
PlanMemory and adds each output's storage id to its node's label (``storage 2``, ``storage 2
in-place on x`` when it reuses an input's memory, ``variable`` for an assign's output), so entries
sharing memory can be spotted by their id.  ``memory="sublinear"`` (a ``Session(memory=...)``
policy) runs the Mirror pass first and draws the ops it recomputes in the backward pass as
dashed green boxes labelled ``recomputed``.  ``fusion=True`` runs the FuseElemwise pass and
draws each fused node as a yellow box listing the code generated for the ops it contains.  Only the
graph layer is used: no torch import.
"""
from __future__ import annotations

import shutil
import subprocess

from ..nnvm.attrs import shape_str
from ..nnvm.errors import ShapeError, TinyflowError
from ..nnvm.graph import Graph, apply_passes
from ..nnvm.passes.plan_memory import EXTERNAL
from ..nnvm.symbol import Symbol, current_context
from ..session.options import memory_option
from ..session.variables import initial_shapes

__all__ = ["render", "to_dot"]

_NEWLINE = "\n"
_STYLES = {
    "placeholder": 'shape=ellipse, style=filled, fillcolor="#cfe2f3"',
    "variable": 'shape=box, style="rounded,filled", fillcolor="#fce5cd"',
    "op": 'shape=box, style=filled, fillcolor="#eeeeee"',
    "backward": 'shape=box, style=filled, fillcolor="#f4cccc"',
    "recomputed": 'shape=box, style="filled,dashed", fillcolor="#d9ead3"',
    "shape": 'shape=ellipse, style=dashed',  # MaterializeShapes' data-less shape nodes
    "fused": 'shape=box, style=filled, fillcolor="#fff2cc"',  # FuseElemwise's groups
}


def to_dot(fetch, shapes=None, plan=False, memory=None, fusion=False) -> str:
    """The graph computing ``fetch`` as Graphviz DOT text.

    Parameters
    ----------
    fetch : Symbol or list of Symbol
        What the graph computes, e.g. a loss, or ``tf.gradients(loss, [W])``.
    shapes : dict, optional
        ``{placeholder or variable (symbol, node or name): shape}``.  When given, InferShape runs
        and every edge is labelled with its entry's shape (``?`` where it stays unknown).
        Variables not listed take the shape of their initialiser when it has one.
    plan : bool
        Also run InferType and PlanMemory (needs ``shapes`` from which every shape follows) and
        show each output's storage id in its node's label.
    memory : str or dict, optional
        A ``Session(memory=...)`` policy (``"sublinear"``, ``"mirror"``, ``{"policy":
        "budget", "budget_bytes": N}``): run the Mirror pass (needs ``shapes``) and mark the
        recomputed nodes.
    fusion : bool
        Run the FuseElemwise pass (needs ``shapes``; after Mirror, before PlanMemory, as a
        ``Session(config='cpu fusion')`` does) and draw the fused nodes with their code.

    Returns
    -------
    str
        DOT text starting with ``digraph``; render it with :func:`render` or ``dot -Tsvg``.
    """
    symbols = fetch if isinstance(fetch, (list, tuple)) else [fetch]
    outputs = []
    for s in symbols:
        if not isinstance(s, Symbol):
            raise TypeError(f"to_dot draws symbols, got {type(s).__name__}")
        outputs.extend(s.outputs)
    if (plan or memory is not None or fusion) and shapes is None:
        raise ValueError("plan=True, memory= and fusion=True need shapes={placeholder: shape} "
                         "to plan memory with")
    graph = Graph(outputs)
    if shapes is not None:
        graph = _infer_shapes(graph, shapes)
    if plan:
        unknown = [n.name for nid, n in enumerate(graph.indexed.nodes)
                   if any(graph.attrs["shape"][graph.indexed.entry_rptr[nid] + i] is None
                          for i in range(n.num_outputs()))]
        if unknown:
            raise ShapeError(f"cannot plan memory: the shape of {', '.join(unknown)} is not "
                             f"known; give it in shapes=")
    if memory is not None:
        memory = memory_option(memory)  # parsed as Session(memory=...) parses it
        graph = apply_passes(graph.with_attrs(
            mirror_policy=memory["policy"], mirror_budget_bytes=memory["budget_bytes"]),
            ["InferType", "MaterializeShapes", "Mirror"])
    if fusion:
        before = [] if memory is not None else ["InferType", "MaterializeShapes"]
        graph = apply_passes(graph, [*before, "FuseElemwise"])
    if plan:
        graph = apply_passes(graph, ["InferType", "OrderMutation", "PlanMemory"])
    return _dot_text(graph)


def render(dot_text: str, path, format="svg") -> str:
    """Render DOT text to ``path`` with Graphviz's ``dot`` program; returns ``path``.

    ``format`` is any ``dot -T`` output format (``svg``, ``png``, ``pdf``...).  Raises
    ``RuntimeError`` when ``dot`` is not installed or fails.
    """
    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError("rendering needs Graphviz's `dot` program, which is not on PATH: "
                           "install graphviz (apt-get install graphviz, brew install graphviz "
                           "or conda install graphviz), or paste the DOT text into any Graphviz "
                           "viewer")
    result = subprocess.run([dot, f"-T{format}", "-o", str(path)], input=dot_text, text=True,
                            capture_output=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"dot -T{format} failed: {result.stderr.strip()}")
    return path


def _infer_shapes(graph: Graph, shapes: dict) -> Graph:
    given = {}
    for key, shape in shapes.items():
        key = key.node if isinstance(key, Symbol) else key
        given[key] = tuple(int(d) for d in shape)
    # Variables take their initial value's shape unless given (as the session finds it).
    present = set(graph.indexed.nodes)
    declared = [v for v in current_context().variables
                if v.node in present and v.node not in given and v.node.name not in given]
    try:
        initial = initial_shapes(declared)
    except TinyflowError:  # an initial value that does not fit: leave it to inference
        initial = {}
    given.update({node: shape for node, shape in initial.items() if shape is not None})
    return apply_passes(graph.with_attrs(shape_inputs=given), "InferShape")


def _quote(text: str) -> str:
    """A DOT string literal; ``\\n`` in ``text`` stays a line break."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _dot_text(graph: Graph) -> str:
    indexed = graph.indexed
    shapes = graph.attrs.get("shape")
    storage_id = graph.attrs.get("storage_id")
    inplace_from = graph.attrs.get("inplace_from", {})
    mirror_plan = graph.attrs.get("mirror_plan")
    recomputed = mirror_plan.recomputed_names if mirror_plan is not None else set()
    fetched = {indexed.entry_node(e)[0] for e in indexed.outputs}
    lines = ["digraph tinyflow {",
             '  graph [fontname="Helvetica", fontsize=11];',
             '  node [fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];']
    if storage_id is not None:
        sizes = graph.attrs["storage_size"]
        summary = f"memory plan: {len(sizes)} storages, {_kib(sum(sizes))} KiB"
        lines.append(f"  label={_quote(summary)};")
    for nid, node in enumerate(indexed.nodes):
        if node.op is None:
            style, kind = _STYLES[node.kind], node.kind
        elif node.kind == "_fused":
            style, kind = _STYLES["fused"], "\n".join(["_fused", *node.attrs["members"]])
        elif node.name in recomputed:
            style, kind = _STYLES["recomputed"], f"{node.op.name}\nrecomputed"
        else:
            style = _STYLES["backward" if node.op.attr("TIsBackward") else "op"]
            kind = node.op.name
        label = [node.name, kind] if node.name != kind else [node.name]
        first = indexed.entry_rptr[nid]
        for i in range(node.num_outputs()):
            entry = first + i
            prefix = f"out {i}: " if node.num_outputs() > 1 else ""
            if nid in fetched and shapes is not None:
                label.append(f"{prefix}shape {shape_str(shapes[entry])}")
            if storage_id is not None and node.op is not None:
                label.append(prefix + _storage_text(indexed, entry, storage_id, inplace_from))
        border = ", peripheries=2" if nid in fetched else ""
        lines.append(f"  n{nid} [label={_quote(_NEWLINE.join(label))}, {style}{border}];")
    for nid, node in enumerate(indexed.nodes):
        for entry, input_id in zip(node.inputs, indexed.input_entries[nid]):
            source = indexed.node_id[entry.node]
            text = [f"[{entry.index}]"] if entry.node.num_outputs() > 1 else []
            if shapes is not None:
                text.append(shape_str(shapes[input_id]))
            attrs = f" [label={_quote(' '.join(text))}]" if text else ""
            lines.append(f"  n{source} -> n{nid}{attrs};")
        for dep in node.control_deps:
            lines.append(f"  n{indexed.node_id[dep]} -> n{nid} [style=dashed];")
    for nid, node in enumerate(indexed.nodes):
        lines.extend(_subgraph_clusters(node, f"n{nid}"))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _subgraph_clusters(node, node_id: str) -> list:
    """A node holding subgraphs (a while_loop's cond and body, a cond's branches): each drawn
    as a cluster beside it, its outputs joined to the node by dotted edges; nested loops
    inside are drawn the same way."""
    lines = []
    for name in (node.op.attr("TSubgraphs") or ()) if node.op is not None else ():
        subgraph = node.attrs[name]
        inner = Graph(list(subgraph.outputs)).indexed
        prefix = f"{node_id}_{name}_"
        lines.append(f"  subgraph cluster_{prefix} {{")
        lines.append(f"    label={_quote(f'{node.name}: {name}')}; style=rounded;")
        for nid, member in enumerate(inner.nodes):
            style = _STYLES[member.kind] if member.op is None else _STYLES[
                "backward" if member.op.attr("TIsBackward") else "op"]
            label = member.name if member.op is None else f"{member.name}\n{member.op.name}"
            lines.append(f"    {prefix}{nid} [label={_quote(label)}, {style}];")
        for nid, member in enumerate(inner.nodes):
            for entry in member.inputs:
                lines.append(f"    {prefix}{inner.node_id[entry.node]} -> {prefix}{nid};")
        lines.append("  }")
        for entry in subgraph.outputs:
            lines.append(f"  {prefix}{inner.node_id[entry.node]} -> {node_id} "
                         f"[style=dotted, label={_quote(name)}];")
        for nid, member in enumerate(inner.nodes):
            lines.extend(_subgraph_clusters(member, f"{prefix}{nid}"))
    return lines


def _storage_text(indexed, entry, storage_id, inplace_from) -> str:
    source = inplace_from.get(entry)
    if storage_id[entry] == EXTERNAL:  # an assign's output is the variable it writes
        return f"variable {indexed.nodes[indexed.entry_node(source)[0]].name}" \
            if source is not None else "external"
    if source is not None:
        return f"storage {storage_id[entry]} in-place on " \
               f"{indexed.nodes[indexed.entry_node(source)[0]].name}"
    return f"storage {storage_id[entry]}"


def _kib(nbytes: int) -> str:
    return f"{nbytes / 1024:.1f}" if nbytes else "0"

