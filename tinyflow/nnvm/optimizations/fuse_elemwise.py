"""FuseElemwise: maximal groups of elementwise ops become one ``_fused`` node each.

An op declaring ``FFuseExpr`` (tinyflow/nnvm/attrs.py) that writes no input, with one float
output and inputs of that dtype (or bool), merges with the groups of the fusable ops it reads,
walking in execution order, unless that makes a cycle (``a -> matmul -> b`` and ``a -> b``).
On the CPU reductions (``TOpPattern`` "reduce") join too.  Groups of one op stay as they were.
Each group becomes a ``_fused`` node (the op declaring ``TInternal`` "FuseElemwise"): its generated
code (``source``: Python over torch; ``cuda_source``: C++ for jiterator), ``members`` (one line per
op), ``member_ops`` and ``member_shapes`` (for errors).  It runs after Gradient and Mirror, before
PlanMemory; why each rule is safe: docs/fusion.md.
"""
from __future__ import annotations

import math
import numbers

from ..generated_code import seal
from ..graph import Graph, UnionFind, _dfs_postorder, node_deps, register_pass
from ..op import Op
from ..symbol import Node, NodeEntry

__all__ = ["fusable", "fuse_elemwise", "fuse_expr"]

# jiterator's limits: at most 8 tensor inputs and 8 outputs per kernel
_CUDA_LIMIT = 8
_PASS = "FuseElemwise"


def _fused_op() -> Op:
    """The op of the nodes this pass makes: the one made by it alone (``TInternal``)."""
    return Op.with_attr("TInternal", _PASS)


def fuse_expr(node: Node, target: str = "cpu", in_shapes=()):
    """The ``FFuseExpr`` template of ``node`` for ``target`` (``"cpu"``: the torch expression,
    ``"cuda"``: the C++ one) given its inputs' shapes, or None when it is not fused there."""
    value = node.op.attr("FFuseExpr") if node.op is not None else None
    if callable(value):
        value = value(node.attrs, list(in_shapes))
    if value is None:
        return None
    return value[0] if target == "cpu" else value[1]


def fusable(node: Node, dtypes: list, target: str = "cpu", in_shapes=()) -> bool:
    """Whether ``node`` may join a fused group: FFuseExpr for ``target``, no mutation, one
    float output, inputs of its dtype (or bool, for an elementwise op) but shape-only ones."""
    if fuse_expr(node, target, in_shapes) is None or node.attr_list("FMutateInputs"):
        return False
    if node.num_outputs() != 1 or not dtypes[-1].startswith("float"):
        return False
    if target == "cuda" and not all(math.isfinite(v) for v in node.attrs.values()
                                    if isinstance(v, numbers.Real)):  # no C++ literal: inf, nan
        return False
    ignored = node.attr_list("FIgnoreInputs")
    # a reduction sums bools to float32 in the graph, to int64 in torch: same dtype only
    allowed = (dtypes[-1],) if node.op.attr("TOpPattern") == "reduce" else (dtypes[-1], "bool")
    return all(t in allowed for i, t in enumerate(dtypes[:-1]) if i not in ignored)


def _data_inputs(node: Node) -> list[NodeEntry]:
    """The inputs whose values ``node`` reads (not those read for their shape only)."""
    ignored = node.attr_list("FIgnoreInputs")
    return [e for i, e in enumerate(node.inputs) if i not in ignored]


def _groups(graph: Graph, target: str) -> dict[int, int]:
    """``{node id: group id}`` of the fusable nodes (group ids are union-find roots)."""
    indexed, dtypes, shapes = graph.indexed, graph.attrs["dtype"], graph.attrs["shape"]
    groups = UnionFind()
    find = groups.find
    members: dict[int, list[int]] = {}
    upstream: list[set] = []  # per node: the group roots it depends on (its own included)
    for nid, node in enumerate(indexed.nodes):
        deps = [indexed.node_id[d] for d in node_deps(node)]
        ancestry = set().union(*(upstream[d] for d in deps)) if deps else set()
        entries = [indexed.entry_id(e) for e in node.inputs] + [indexed.entry_rptr[nid]]
        if node.op is not None and fusable(node, [dtypes[e] for e in entries], target,
                                           [shapes[e] for e in entries[:-1]]):
            groups.add(nid)
            members[nid] = [nid]
            # one set of guards (a tf.cond branch's ops run only when taken)
            candidates = {find(d) for d in deps if d in groups
                          and set(indexed.nodes[d].guards()) == set(node.guards())}
            for root in sorted(candidates, key=lambda r: -len(members[r])):
                mine = find(nid)
                if _can_merge(indexed, members[mine] + members[root], {mine, root}, groups,
                              upstream) and _fits(graph, members[mine] + members[root], target):
                    groups.union(root, mine)
                    members[mine] += members.pop(root)
            ancestry.add(find(nid))
        upstream.append({find(g) for g in ancestry})
    return {nid: find(nid) for nid in groups.parent}


def _can_merge(indexed, nodes, roots, groups, upstream) -> bool:
    """No dependency of ``nodes`` outside ``roots``' groups depends on them (no cycle)."""
    for nid in nodes:
        for dep in node_deps(indexed.nodes[nid]):
            d = indexed.node_id[dep]
            if d in groups and groups.find(d) in roots:
                continue
            if {groups.find(g) for g in upstream[d]} & roots:
                return False
    return True


def _fits(graph, nodes, target) -> bool:
    """Within jiterator's limits (the CPU has none): at most 8 inputs, one output shape."""
    # jiterator gives every output the inputs' broadcast shape
    if target != "cuda":
        return True
    indexed, inside = graph.indexed, set(nodes)
    outside = {indexed.entry_id(e) for nid in nodes for e in _data_inputs(indexed.nodes[nid])
               if indexed.node_id[e.node] not in inside}
    shapes = {graph.attrs["shape"][indexed.entry_rptr[nid]] for nid in nodes}
    return len(outside) <= _CUDA_LIMIT and len(shapes) == 1


def _literal(value) -> str:
    """A node attribute as source text: numbers as Python / C++ literals."""
    # float('inf') and float('nan') are Python only: not fused on CUDA (fusable)
    if isinstance(value, bool) or not isinstance(value, numbers.Number):
        return repr(value)
    if isinstance(value, numbers.Integral):
        return repr(int(value))
    return repr(float(value)) if math.isfinite(value) else f"float('{float(value)!r}')"


def generate(nodes: list[Node], inputs: list[NodeEntry], outputs: list[NodeEntry],
             cuda: bool = True, in_shapes=None) -> dict:
    """The code of ``nodes`` reading ``inputs``, giving ``outputs``: ``source`` (Python,
    ``fused(x0, ...)`` returning the outputs), ``cuda_source`` (jiterator C++ writing ``out0,
    ...``, or None) and ``members`` (``"v2 = x0 * v1  # elemwise_mul 'mul'"``, one a node)."""
    names = {e: f"x{i}" for i, e in enumerate(inputs)}
    python, cpp, members = [], [], []
    for i, node in enumerate(nodes):
        args = [names.get(e, "None") for e in node.inputs]  # shape-only inputs are not passed
        attrs = {k: _literal(v) for k, v in node.attrs.items()}
        shapes = (in_shapes or {}).get(node, ())
        py, cu = fuse_expr(node, "cpu", shapes), fuse_expr(node, "cuda", shapes)
        names[NodeEntry(node, 0)] = f"v{i}"
        line = f"v{i} = {py.format(*args, **attrs)}"
        python.append(f"    {line}")
        members.append(f"{line}  # {node.op.name} '{node.name}'")
        cpp.append(None if cu is None else f"  T v{i} = {cu.format(*args, **attrs)};")
    arguments = ", ".join(names[e] for e in inputs)
    results = "".join(f"{names[e]}, " for e in outputs)
    source = "\n".join([f"def fused({arguments}):", *python, f"    return ({results})", ""])
    cuda_source = None
    if cuda and None not in cpp:
        params = ", ".join([f"T {names[e]}" for e in inputs]
                           + [f"T& out{j}" for j in range(len(outputs))])
        stores = [f"  out{j} = {names[e]};" for j, e in enumerate(outputs)]
        cuda_source = "\n".join([f"template <typename T> void fused({params}) {{", *cpp,
                                 *stores, "}", ""])
    return {"source": source, "cuda_source": cuda_source, "members": members}


@register_pass(_PASS, requires=("shape", "dtype"),
               provides=("shape", "dtype", "fused_groups"))
def fuse_elemwise(graph: Graph) -> Graph:
    """Replace each group of two or more fusable ops by one ``_fused`` node.

    Reads ``fusion_target`` (``"cpu"``, default, or ``"cuda"``: C++ expressions only, at most 8
    inputs and outputs) and ``fusion_backend`` (``"compiled"``, default, or ``"eager"``).
    Provides ``shape``, ``dtype`` and ``fused_groups``: ``[(fused node, [member names])]``,
    empty when nothing is fused (then the graph is returned as it was).
    """
    target = graph.attrs.get("fusion_target", "cpu")
    group_of = _groups(graph, target)
    groups: dict[int, list[int]] = {}
    for nid in sorted(group_of):
        groups.setdefault(group_of[nid], []).append(nid)
    groups = {root: nids for root, nids in groups.items() if len(nids) > 1}
    readers = _outside_readers(graph.indexed, groups, group_of)
    if target == "cuda":
        groups = {root: nids for root, nids in groups.items() if len(readers[root]) <= 8}
    groups, order = _condensed_order(graph, groups)
    if not groups:
        return graph.with_attrs(fused_groups=[])
    return _rebuild(graph, groups, order, readers, target)


def _outside_readers(indexed, groups, group_of) -> dict[int, list[NodeEntry]]:
    """Per group, its members' entries read by a node outside it or fetched (in order)."""
    needed: dict[int, dict] = {root: {} for root in groups}
    for nid, node in enumerate(indexed.nodes):
        for entry in node.inputs:
            root = group_of.get(indexed.node_id[entry.node])
            if root in groups and group_of.get(nid) != root:
                needed[root][entry] = True
    for entry in indexed.outputs:
        nid, index = indexed.entry_node(entry)
        if group_of.get(nid) in groups:
            needed[group_of[nid]][NodeEntry(indexed.nodes[nid], index)] = True
    return {root: sorted(entries, key=indexed.entry_id) for root, entries in needed.items()}


def _condensed_order(graph, groups):
    """``(groups, order)``: the execution order, each group one vertex (its root id), without
    the groups on a cycle (``{a, n}`` reading c from ``{c, d}``, d reading ``matmul(a)``)."""
    indexed = graph.indexed
    while True:
        vertex = {indexed.nodes[nid]: root for root, nids in groups.items() for nid in nids}

        def deps(v, vertex=vertex, groups=groups):
            nodes = [indexed.nodes[n] for n in groups[v]] if isinstance(v, int) else [v]
            found = [vertex.get(d, d) for n in nodes for d in node_deps(n)]
            return [d for d in dict.fromkeys(found) if d != v]
        order = _dfs_postorder(list(dict.fromkeys(vertex.get(e.node, e.node)
                                                  for e in graph.outputs)), deps)
        place = {v: i for i, v in enumerate(order)}
        # in a post-order a vertex read after its reader closes a cycle through the vertices
        # placed between them (the search's path from one to the other)
        late = next(((place[v], max(place[d] for d in deps(v))) for v in order
                     if any(place[d] > place[v] for d in deps(v))), None)
        if late is None:
            return groups, order
        groups = {r: nids for r, nids in groups.items() if not late[0] <= place[r] <= late[1]}


def _rebuild(graph, groups, order, readers, target) -> Graph:
    """The graph with each group replaced by its ``_fused`` node (``order``: see
    :func:`_condensed_order`); nodes that read nothing changed are shared with ``graph``."""
    indexed = graph.indexed
    entries: dict[NodeEntry, NodeEntry] = {}  # old entry -> new entry
    nodes: dict[Node, Node] = {}  # old node -> new node (a member -> its fused node)
    origin: dict[Node, list[int]] = {}  # new node -> the old entry ids of its outputs
    for v in order:
        if isinstance(v, int):
            _fused_node(graph, [indexed.nodes[n] for n in groups[v]], readers[v], target,
                        entries, nodes, origin)
            continue
        inputs = [entries.get(e, e) for e in v.inputs]
        controls = [nodes.get(c, c) for c in v.control_deps]
        new = v if inputs == v.inputs and controls == v.control_deps else Node(
            v.op, v.name, v.attrs, inputs, controls, source=v.source, graph=v.graph)
        nodes[v] = new
        first = indexed.entry_id((v, 0))
        origin[new] = list(range(first, first + v.num_outputs()))
        entries.update({NodeEntry(v, i): NodeEntry(new, i) for i in range(v.num_outputs())})
    outputs = [entries.get(e, e) for e in graph.outputs]
    result = Graph(outputs, graph.attrs)
    carried = {key: [graph.attrs[key][old] for node in result.indexed.nodes
                     for old in origin[node]] for key in ("shape", "dtype")}
    fused_op = _fused_op()
    fused = [(node.name, list(node.attrs["member_names"]))
             for node in result.indexed.nodes if node.op is fused_op]
    drop = ("storage_id", "storage_size", "inplace_from")
    attrs = {k: v for k, v in graph.attrs.items() if k not in drop}
    return Graph(outputs, {**attrs, **carried, "fused_groups": fused}, result.indexed)


def _fused_node(graph, members, outputs, target, entries, nodes, origin):
    """Make the ``_fused`` node of ``members`` and map their entries and nodes to it."""
    indexed = graph.indexed
    inside = set(members)
    inputs = list(dict.fromkeys(e for m in members for e in _data_inputs(m)
                                if e.node not in inside))
    controls = list(dict.fromkeys(nodes.get(c, c) for m in members for c in m.control_deps
                                  if c not in inside))
    shape = graph.attrs["shape"]
    code = generate(members, inputs, outputs, target == "cuda",
                    {m: [shape[indexed.entry_id(e)] for e in m.inputs] for m in members})
    ids = [indexed.entry_id(e) for e in outputs]
    last = members[-1]
    attrs = {**code, "member_names": [m.name for m in members],
             "member_ops": [m.describe() for m in members],  # errors name what the user wrote
             "member_shapes": [shape[indexed.entry_id(NodeEntry(m, 0))] for m in members],
             "num_args": len(inputs), "num_outputs": len(outputs),
             "shapes": [graph.attrs["shape"][e] for e in ids],
             "dtypes": [graph.attrs["dtype"][e] for e in ids],
             "backend": graph.attrs.get("fusion_backend", "compiled"),
             "code_seal": seal(code["source"], code["cuda_source"])}  # compiled only if so
    node = Node(_fused_op(), f"{last.name}/fused", attrs,
                [entries.get(e, e) for e in inputs], controls, source=last.source,
                graph=last.graph)
    origin[node] = ids
    nodes.update(dict.fromkeys(members, node))
    entries.update({e: NodeEntry(node, j) for j, e in enumerate(outputs)})
