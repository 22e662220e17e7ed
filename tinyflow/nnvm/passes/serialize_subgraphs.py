"""Subgraphs in graph JSON: a loop's cond and body, a cond's branches, saved and loaded back.

A node's :class:`~tinyflow.nnvm.subgraph.Subgraph` attribute (the op names such attributes in
``TSubgraphs`` and ``TShapeSubgraphs``) is written as ``{"inputs": [node index...],
"outputs": [[node index, output index]...]}`` over the document's one node list.  SaveJSON
lists every node once, a subgraph's nodes before the node holding it, so that what the
subgraphs share stays shared when loaded: a loop's cond and body read one capture
placeholder, a gradient's subgraph recomputes the body's own nodes, and a variable a body
assigns is the graph's variable node itself.  Nesting (a loop inside a loop) is then order
in the list, never recursion in the reader.

LoadJSON reads an untrusted document: a subgraph's nodes are checked as every node is (they
are nodes of the list), its inputs must be placeholders, and two bounds hold before anything
is bound: a subgraph nests at most ``MAX_NESTING`` deep, and the entries that binding every
node's subgraphs would make (a nested loop's counted again for each loop around it) are at
most ``MAX_ENTRIES`` in all, so that no document multiplies its size by sharing one subgraph
among many loops.
"""
from __future__ import annotations

from ..graph import _dfs_postorder, node_deps
from ..subgraph import Subgraph

__all__ = ["MAX_NESTING", "SubgraphReader", "nodes_in_order", "subgraph_attrs",
           "subgraph_to_json"]

# A loop in a loop in a loop...: binding recurses per level (the executor binds a subgraph
# inside the node's bind, shape inference infers a body's shapes inside the loop's); loops
# nested 120 deep bound in a few frames each, so 16 stays far inside Python's recursion
# limit, and TF-1 programs nest 2 or 3 deep
MAX_NESTING = 16


def subgraph_attrs(op) -> tuple:
    """The names of ``op``'s attributes that hold a Subgraph (none for a graph input)."""
    if op is None:
        return ()
    keep = op.attr("TKeep")  # a backward's subgraph of the forward's entries it reads
    return tuple(op.attr("TSubgraphs") or ()) + tuple(op.attr("TShapeSubgraphs") or ()) + (
        (keep[0],) if keep else ())


def _subgraphs(node) -> list:
    return [node.attrs[name] for name in subgraph_attrs(node.op)
            if isinstance(node.attrs.get(name), Subgraph)]


def _deps(node) -> list:
    """What a node follows in the document: its subgraphs' inputs and nodes, then its own."""
    before = [n for sub in _subgraphs(node) for n in
              list(sub.inputs) + [e.node for e in sub.outputs]]
    return before + node_deps(node)


def nodes_in_order(outputs) -> list:
    """Every node the graph's ``outputs`` reach, through edges or subgraphs, each after its
    inputs, its control dependencies and the nodes of its subgraphs (no recursion)."""
    return _dfs_postorder([e.node for e in outputs], _deps)


def subgraph_to_json(node, name: str, ids: dict) -> dict:
    """Attribute ``name`` of ``node`` as a document value (``ids``: node -> list index).
    TypeError when it is a Subgraph in an attribute the op does not declare as one."""
    value = node.attrs[name]
    if name not in subgraph_attrs(node.op):
        raise TypeError(f"{node.describe()}: attribute {name!r} holds a subgraph, which its op "
                        f"does not declare (TSubgraphs, TShapeSubgraphs, TKeep)")
    return {"inputs": [ids[p] for p in value.inputs],
            "outputs": [[ids[e.node], e.index] for e in value.outputs]}


class SubgraphReader:
    """LoadJSON's reading of subgraph attributes over the nodes built so far, with the
    document's bounds (``check(condition, what, expected)`` raises LoadJSON's error;
    ``entry(nodes, value, what)`` and ``index(value, limit, what)`` read references)."""

    def __init__(self, check, entry, index, max_entries: int):
        self.check, self.entry, self.index = check, entry, index
        self.max_entries = max_entries
        self.bound = 0  # the entries binding every node's subgraphs makes, so far
        self.depth: dict = {}  # node -> how deep its subgraphs nest (0: it holds none)
        self.size: dict = {}  # node -> its entries, those its subgraphs make when bound too

    def read(self, op, attrs: dict, nodes: list, where: str) -> dict:
        """``attrs`` with each subgraph attribute of ``op`` read into a Subgraph."""
        attrs = dict(attrs)
        for name in subgraph_attrs(op):
            value = attrs.get(name)
            what = f"{where} attribute {name!r}"
            self.check(isinstance(value, dict) and isinstance(value.get("inputs"), list)
                       and isinstance(value.get("outputs"), list), what,
                       "a subgraph {\"inputs\": [node index...], \"outputs\": [[node index, "
                       "output index]...]}")
            inputs = [nodes[self.index(i, len(nodes), f"{what} input {i!r}")]
                      for i in value["inputs"]]
            for node in inputs:
                self.check(node.op is None and node.kind == "placeholder",
                           f"{what} input '{node.name}'", "a placeholder")
            outputs = [self.entry(nodes, e, f"{what} output") for e in value["outputs"]]
            attrs[name] = Subgraph(inputs, outputs)
        return attrs

    def admit(self, node, where: str) -> None:
        """Count ``node`` (just built) into the bounds: its nesting depth and what its
        subgraphs make when bound, refused past the bounds before anything is bound."""
        self._check_arity(node, where)
        size, depth = node.num_outputs(), 0
        for sub in _subgraphs(node):
            seen, stack = set(), [e.node for e in sub.outputs] + list(sub.inputs)
            while stack:  # each node reached costs its entries and edges, so the walks of
                inner = stack.pop()  # all subgraphs together stay within the bound
                if inner in seen:
                    continue
                seen.add(inner)
                size += self.size.get(inner, 1)
                depth = max(depth, 1 + self.depth.get(inner, 0))
                self.bound += self.size.get(inner, 1) + len(inner.inputs) + len(
                    inner.control_deps)
                self.check(self.bound <= self.max_entries, "the entries and edges its "
                           f"subgraphs make when bound (to {where})", f"at most "
                           f"{self.max_entries}")
                stack.extend(node_deps(inner))
        self.check(depth <= MAX_NESTING, f"{where}: its subgraphs nest {depth} deep, which",
                   f"at most {MAX_NESTING}")
        if depth:
            self.size[node], self.depth[node] = size, depth

    def _check_arity(self, node, where: str) -> None:
        """Each subgraph takes and gives as many entries as the op's FSubgraphArity says."""
        names = subgraph_attrs(node.op)
        if not names:
            return
        rule, problem, counts = node.op.attr("FSubgraphArity"), None, {}
        try:  # an attribute missing or of the wrong type: the op's own rule says so
            arity = rule(node.attrs)
            counts = {name: (int(arity[name][0]), None if arity[name][1] is None else
                             int(arity[name][1])) for name in names}  # None: any number
        except (LookupError, TypeError, ValueError, ArithmeticError, AttributeError) as err:
            problem = f"{type(err).__name__}: {str(err)[:200]}"
        self.check(problem is None, f"{where} attributes", f"ones giving its subgraphs' "
                   f"numbers of inputs and outputs ({problem})")
        for name, (ins, outs) in counts.items():
            sub = node.attrs[name]
            self.check(len(sub.inputs) == ins and outs in (None, len(sub.outputs)),
                       f"{where} subgraph {name!r} ({len(sub.inputs)} inputs, "
                       f"{len(sub.outputs)} outputs)", f"{ins} inputs and {outs} outputs")
