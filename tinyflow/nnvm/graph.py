"""Graph, IndexedGraph and the pass registry.

A :class:`Graph` is a list of output entries plus named attributes (``shape``, ``dtype``,
``storage_id``...).  Passes are pure functions ``Graph -> Graph`` registered by name with
:func:`register_pass`; they read attributes they require and return a new graph with the
attributes they provide.  :class:`IndexedGraph` numbers nodes in execution order and entries
densely, so per-entry attributes are plain lists indexed by entry id.
"""
from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field

from .errors import GraphError
from .symbol import Node, NodeEntry, Symbol

__all__ = ["Graph", "IndexedGraph", "apply_passes", "list_passes", "register_pass"]


class IndexedGraph:
    """Nodes in execution order (a topological order) with dense node and entry ids.

    The order is a depth-first post-order, except that an op mutating a variable (FMutateInputs)
    runs after every other reader of that variable, so reads see the old value.
    """

    def __init__(self, outputs: list[NodeEntry]):
        postorder = _dfs_postorder([e.node for e in outputs])
        self.nodes: list[Node] = _schedule(postorder)
        self.node_id: dict[Node, int] = {n: i for i, n in enumerate(self.nodes)}
        self.entry_rptr: list[int] = [0]
        for node in self.nodes:
            self.entry_rptr.append(self.entry_rptr[-1] + node.num_outputs())
        self.input_entries: list[list[int]] = [
            [self.entry_id(e) for e in node.inputs] for node in self.nodes]
        self.outputs: list[int] = [self.entry_id(e) for e in outputs]
        self.input_nodes: list[int] = [i for i, n in enumerate(self.nodes) if n.op is None]

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


def _dfs_postorder(roots: list[Node]) -> list[Node]:
    """Iterative depth-first post-order over inputs and control deps (no recursion limit)."""
    order, seen = [], set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(_deps(root)))]
        while stack:
            node, children = stack[-1]
            for child in children:
                if child not in seen:
                    seen.add(child)
                    stack.append((child, iter(_deps(child))))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


def _deps(node: Node) -> list[Node]:
    return [e.node for e in node.inputs] + list(node.control_deps)


def _schedule(postorder: list[Node]) -> list[Node]:
    """Topological order close to ``postorder``, with writers of a variable after its readers."""
    rank = {n: i for i, n in enumerate(postorder)}
    deps = {n: set(_deps(n)) for n in postorder}
    writers = [(n, n.inputs[i].node) for n in postorder for i in n.attr_list("FMutateInputs")]
    if writers:
        users: dict[Node, list[Node]] = {n: [] for n in postorder}
        for n in postorder:
            for d in deps[n]:
                users[d].append(n)
        writers_of = {}
        for writer, var in writers:
            writers_of.setdefault(var, set()).add(writer)
        for writer, var in writers:
            after = _reachable(writer, users)  # nodes depending on the writer cannot precede it
            for reader in users[var]:
                if reader not in writers_of[var] and reader not in after:
                    deps[writer].add(reader)
    # Kahn's algorithm, always taking the ready node that comes first in the post-order.
    waiting = {n: len(deps[n]) for n in postorder}
    users_of: dict[Node, list[Node]] = {n: [] for n in postorder}
    for n in postorder:
        for d in deps[n]:
            users_of[d].append(n)
    ready = [(rank[n], n.name, id(n), n) for n in postorder if waiting[n] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        node = heapq.heappop(ready)[3]
        order.append(node)
        for user in users_of[node]:
            waiting[user] -= 1
            if waiting[user] == 0:
                heapq.heappush(ready, (rank[user], user.name, id(user), user))
    if len(order) != len(postorder):
        stuck = [n.name for n in postorder if waiting[n] > 0]
        raise GraphError(f"cannot order the graph: a variable is read after it is assigned in a "
                         f"cycle through {', '.join(stuck[:5])}")
    return order


def _reachable(start: Node, users: dict[Node, list[Node]]) -> set[Node]:
    seen, stack = {start}, [start]
    while stack:
        for user in users[stack.pop()]:
            if user not in seen:
                seen.add(user)
                stack.append(user)
    return seen


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
        if isinstance(outputs, Symbol):
            outputs = outputs.outputs
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

    def symbol(self) -> Symbol:
        return Symbol(self.outputs)


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
    earlier passes); ``provides`` lists the attributes the pass adds.
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
    return graph
