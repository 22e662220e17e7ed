"""Graph, IndexedGraph and the pass registry.

A :class:`Graph` is a list of output entries plus named attributes (``shape``, ``dtype``,
``storage_id``...).  Passes are pure functions ``Graph -> Graph`` registered by name with
:func:`register_pass`; they read attributes they require and return a new graph with the
attributes they provide.  :class:`IndexedGraph` numbers nodes in execution order and entries
densely, so per-entry attributes are plain lists indexed by entry id.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from .errors import GraphError

if TYPE_CHECKING:  # the node type, for annotations only: symbol.py builds on this module
    from .symbol import Node


def _as_tensor(method: str):
    """NodeEntry's ``__<method>__``: the tensor's (see NodeEntry)."""
    return lambda self, *args: getattr(self._tensor(), f"__{method}__")(*args)


class NodeEntry(NamedTuple):
    """Output ``index`` of ``node``: an edge of the graph."""

    node: Node
    index: int

    @property
    def name(self) -> str:
        """``"<node>:<index>"``, the name TensorFlow gives the tensor (``op.inputs[0].name``)."""
        return f"{self.node.name}:{self.index}"

    @property
    def op(self) -> Node:
        """The node making this entry (TensorFlow's ``tensor.op``)."""
        return self.node

    # TensorFlow's op.inputs are tensors: an entry answers as the tensor it is, which its
    # graph makes (GraphContext.tensor; symbol.py builds on this module, not the other way)
    def _tensor(self):
        return self.node.graph.tensor(self)

    @property
    def shape(self):
        """The static shape (``tensor.shape``)."""
        return self._tensor().get_shape()

    def get_shape(self):
        return self._tensor().get_shape()

    @property
    def dtype(self):
        return self._tensor().dtype

    @property
    def graph(self):
        return self.node.graph

    @property
    def value_index(self) -> int:
        return self.index

    def eval(self, feed_dict=None, session=None):
        return self._tensor().eval(feed_dict, session)

    # the operators a tensor has (a tuple's + and * would concatenate and repeat)
    __add__, __radd__, __sub__, __rsub__ = map(_as_tensor, ("add", "radd", "sub", "rsub"))
    __mul__, __rmul__, __truediv__, __rtruediv__ = map(_as_tensor, (
        "mul", "rmul", "truediv", "rtruediv"))
    __neg__, __pow__, __matmul__ = map(_as_tensor, ("neg", "pow", "matmul"))

__all__ = ["CHANNELS_LAST", "ENTRY_ATTRS", "Graph", "IndexedGraph", "UnionFind", "apply_passes",
           "carry_entry_attrs", "list_passes", "node_deps", "register_pass", "rewrite"]


class IndexedGraph:
    """Nodes in execution order (a topological order) with dense node and entry ids.

    The order is a depth-first post-order over inputs and control dependencies.  Nothing else
    orders a variable's readers before an op that mutates it: the OrderMutation pass adds the
    control dependencies that do (see :mod:`tinyflow.nnvm.passes.order_mutation`).
    """

    def __init__(self, outputs: list[NodeEntry]):
        self.nodes: list[Node] = _dfs_postorder([e.node for e in outputs])
        self.node_id: dict[Node, int] = {n: i for i, n in enumerate(self.nodes)}
        self.entry_rptr: list[int] = [0]
        for node in self.nodes:
            self.entry_rptr.append(self.entry_rptr[-1] + node.num_outputs())
        self.input_entries: list[list[int]] = [
            [self.entry_id(e) for e in node.inputs] for node in self.nodes]
        self.outputs: list[int] = [self.entry_id(e) for e in outputs]
        self.input_nodes: list[int] = [i for i, n in enumerate(self.nodes) if n.op is None]

    @functools.cached_property
    def waited_on(self) -> set[Node]:
        """The nodes some node has a control dependency on (passes leave them in place)."""
        return {c for node in self.nodes for c in node.control_deps}

    @property
    def num_nodes(self) -> int:
        return len(self.nodes)

    @property
    def num_entries(self) -> int:
        return self.entry_rptr[-1]

    def entry_id(self, entry: NodeEntry | tuple) -> int:
        node, index = entry
        nid = node if isinstance(node, int) else self.node_id[node]
        return self.entry_rptr[nid] + index

    def entry_node(self, entry_id: int) -> tuple[int, int]:
        """``(node id, output index)`` of an entry id."""
        lo, hi = 0, len(self.nodes) - 1
        while lo < hi:  # binary search in entry_rptr
            mid = (lo + hi + 1) // 2
            if self.entry_rptr[mid] <= entry_id:
                lo = mid
            else:
                hi = mid - 1
        return lo, entry_id - self.entry_rptr[lo]


def _dfs_postorder(roots: list[Node], deps=None) -> list[Node]:
    """Iterative depth-first post-order over inputs and control deps (no recursion limit);
    ``deps(node)``, the nodes a node waits for, is :func:`node_deps` unless given (a pass
    ordering a graph it has not built yet)."""
    node_deps_of = deps or node_deps
    order, seen = [], set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(node_deps_of(root)))]
        while stack:
            node, children = stack[-1]
            for child in children:
                if child not in seen:
                    seen.add(child)
                    stack.append((child, iter(node_deps_of(child))))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


class UnionFind:
    """Disjoint sets of ids (ChooseLayout's entries sharing a layout, FuseElemwise's nodes
    fused together); ``find`` halves paths as it goes."""

    def __init__(self, items=()):
        self.parent = {item: item for item in items}

    def add(self, item) -> None:
        self.parent[item] = item

    def __contains__(self, item) -> bool:
        return item in self.parent

    def find(self, item):
        parent = self.parent
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    def union(self, item, other) -> None:
        """Join ``item``'s set to ``other``'s (whose root stays the root)."""
        self.parent[self.find(item)] = self.find(other)


def node_deps(node: Node) -> list[Node]:
    """The nodes ``node`` waits for: its inputs' nodes, then its control dependencies."""
    return [e.node for e in node.inputs] + list(node.control_deps)


# Per-entry graph attributes a rewrite carries to its new entry numbering (see rewrite); the
# memory plan's are dropped instead (plan after rewriting).
ENTRY_ATTRS = ("shape", "dtype")
_PER_ENTRY = ENTRY_ATTRS + ("storage_id", "storage_size", "inplace_from", "layout")
# The value of the per-entry ``layout`` attribute for an NCHW-shaped entry the executor lays out
# channels-last (ChooseLayout sets it; None: contiguous)
CHANNELS_LAST = "channels_last"


def rewrite(graph: Graph, change, carried=ENTRY_ATTRS, new_entries=None) -> Graph:
    """A copy of ``graph`` with some nodes' inputs or control deps changed; nodes are never
    mutated, so each changed node and every node downstream of one is rebuilt.

    Parameters
    ----------
    change : function ``node -> (inputs, control_deps) | Node | None``
        Called once per node in execution order with the original node; returns its new inputs
        (NodeEntry of original or new nodes) and control deps, a new node to take its place (its
        entries carry the first ones' attributes of the node it replaces), or None to keep it.
        Inputs and control deps naming rebuilt nodes are redirected to their new versions.
    carried : tuple of str
        Per-entry attributes present in ``graph`` to carry over to the new numbering.
    new_entries : dict, optional
        ``{new input node: {attribute: value}}`` for input nodes ``change`` created (shape nodes).

    Returns
    -------
    Graph with the remaining attributes of ``graph`` (per-entry ones other than ``carried``
    dropped); ``graph`` itself when nothing changed.
    """
    indexed = graph.indexed
    rebuilt: dict[Node, Node] = {}
    for node in indexed.nodes:  # execution order: inputs are rebuilt first
        wanted = change(node)
        new = node if wanted is None or isinstance(wanted, tuple) else wanted  # a new node
        inputs, controls = (wanted if wanted is not None and new is node
                            else (new.inputs, new.control_deps))
        inputs = [NodeEntry(rebuilt.get(e.node, e.node), e.index) for e in inputs]
        controls = [rebuilt.get(c, c) for c in controls]
        if new is not node or inputs != node.inputs or controls != node.control_deps:
            rebuilt[node] = new.with_edges(inputs, controls)
    if not rebuilt:
        return graph
    outputs = [NodeEntry(rebuilt.get(e.node, e.node), e.index) for e in graph.outputs]
    return carry_entry_attrs(graph, outputs, {new: old for old, new in rebuilt.items()},
                             carried, new_entries)


def carry_entry_attrs(graph: Graph, outputs, origin: dict, carried=ENTRY_ATTRS,
                      new_entries=None) -> Graph:
    """The graph of ``outputs`` (nodes of ``graph`` and new ones) with ``graph``'s attributes:
    each node's per-entry ones (of ``carried``) are those of the first entries of
    ``origin.get(node, node)``, a node of ``graph`` with at least as many outputs, or
    ``new_entries[node]`` (``{attribute: value}``, one-output input nodes); the other per-entry
    attributes (the memory plan's) are dropped."""
    attrs = {k: v for k, v in graph.attrs.items() if k not in _PER_ENTRY or k in carried}
    result = Graph(outputs, attrs)
    indexed, new_indexed = graph.indexed, result.indexed
    for key in carried:
        if key not in graph.attrs:
            continue
        values = []
        for node in new_indexed.nodes:
            if node in (new_entries or {}):
                values.append(new_entries[node][key])
                continue
            first = indexed.entry_rptr[indexed.node_id[origin.get(node, node)]]
            values.extend(graph.attrs[key][first:first + node.num_outputs()])
        attrs[key] = values
    return Graph(outputs, attrs, new_indexed)


class Graph:
    """Output entries plus named attributes.  Passes return new graphs; this one is not changed.

    Parameters
    ----------
    outputs : Symbol or list of NodeEntry
        What the graph computes.
    attrs : dict, optional
        Graph attributes (``shape``, ``dtype``, ``storage_id``, pass parameters...).
    """

    def __init__(self, outputs, attrs: dict | None = None, indexed: IndexedGraph | None = None):
        outputs = getattr(outputs, "outputs", outputs)  # a Symbol's entries
        self.outputs: list[NodeEntry] = list(outputs)
        self.attrs: dict = dict(attrs or {})
        self._indexed = indexed

    @property
    def indexed(self) -> IndexedGraph:
        """The :class:`IndexedGraph` of this graph, built once."""
        if self._indexed is None:
            self._indexed = IndexedGraph(self.outputs)
        return self._indexed

    def with_attrs(self, **attrs) -> Graph:
        """A new graph with the same outputs and ``attrs`` added to (a copy of) the attributes."""
        return Graph(self.outputs, {**self.attrs, **attrs}, self._indexed)


@dataclass(frozen=True)
class PassInfo:
    name: str
    function: Callable[[Graph], Graph]
    requires: tuple = ()
    provides: tuple = ()
    doc: str = field(default="", compare=False)


_PASSES: dict[str, PassInfo] = {}


def register_pass(name: str, requires=(), provides=()):
    """Decorator registering ``f(graph) -> graph`` as pass ``name``.

    ``requires`` lists graph attributes that must be present (pass parameters or the results of
    earlier passes); ``provides`` lists the attributes the pass adds.  :func:`apply_passes`
    checks both.
    """
    def wrap(function):
        _PASSES[name] = PassInfo(name, function, tuple(requires), tuple(provides),
                                 function.__doc__ or "")
        return function
    return wrap


def list_passes() -> dict[str, PassInfo]:
    return dict(_PASSES)


def apply_passes(graph: Graph, names) -> Graph:
    """Apply the passes ``names`` (a name or a list) in order and return the final graph."""
    for name in [names] if isinstance(names, str) else names:
        info = _PASSES.get(name)
        if info is None:
            raise GraphError(f"no pass named {name!r}; registered: {sorted(_PASSES)}")
        missing = [a for a in info.requires if a not in graph.attrs]
        if missing:
            raise GraphError(f"pass {name} needs graph attribute(s) {missing}")
        graph = info.function(graph)
        missing = [a for a in info.provides if a not in graph.attrs]
        if missing:
            raise GraphError(f"pass {name} did not provide graph attribute(s) {missing}")
    return graph
