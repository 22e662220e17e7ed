"""Mirror: trade compute for memory by recomputing forward activations in the backward graph.

A training graph keeps every forward activation its gradient reads alive from the forward pass
until the backward pass reaches it, so the planned memory of an n-layer chain grows as O(n).
This pass keeps some forward entries (*checkpoints*) and gives the backward nodes reading the
others a *mirror*: a copy of the forward node (named ``<node>.mirror``) computed again from the
nearest kept entries, just before the backward segment that needs it [Chen et al. 2016,
"Training Deep Nets with Sublinear Memory Cost"; MXNet's mirror and memonger].

Which nodes are forward and which backward: a node the Gradient pass built (a name scope
``gradients/``, ``gradients_1/``..., as TensorFlow's grappler finds its recomputation targets),
or a node reading one (an optimizer update), is backward; the other op nodes are forward.

Which forward nodes may be recomputed: those computed by a deterministic Lua body with no side
effect.  Never an op writing a variable (FMutateInputs) or reading such an op's output, a random
op (``TRandom``, or a node with a seed: its mask or sample would differ), an op computed in Python
(FPythonCompute: tf.Print, tf.py_func), or a node with control dependencies (its value depends on
when it runs).

Which are kept (the policy, ``graph.attrs["mirror_policy"]``):

- ``"mirror"``: MXNet's rule, recompute cheap ops and keep the outputs of the expensive ones
  (more than :data:`CHEAP_FLOPS_PER_ELEMENT` FLOPs per output element: matmul, convolution).
- ``"budget"``: Chen's greedy segmenting: walk the forward nodes in order, adding up their
  output bytes; at a node no other forward value crosses (an articulation point of the chain)
  where the sum exceeds ``mirror_budget_bytes``, keep it and start a new segment.
- ``"sqrt"``: the budget chosen by searching, as memonger's ``search_plan``: budgets from one
  node's bytes to all of them, each plan's cost estimated as kept bytes plus the largest
  segment, the cheapest taken.  For an n-layer chain that is segments of about sqrt(n) layers.

``tf.recompute_scope()`` hints (``graph.recompute_hints``: node name -> bool) override the
policy for the nodes made in the scope: True recomputes them (when it is safe), False keeps them.

When the backward graph runs (the order :class:`~tinyflow.nnvm.graph.IndexedGraph` gives) is
what makes memory drop: a mirror computed early lives as long as the activation it replaces.
So the first mirrors of each segment get control dependencies on the backward work of the
segment above (its gradients, its weight gradients and their updates): the segment's
recomputation runs after that work, and the upper segment's values are freed before it.
Run it before OrderMutation, so that an update of a weight runs after the mirrors reading it.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ..errors import GraphError
from ..graph import Graph, _dfs_postorder, node_deps, register_pass
from ..passes.infer import DTYPE_SIZE
from ..symbol import Node, NodeEntry

__all__ = ["CHEAP_FLOPS_PER_ELEMENT", "POLICIES", "MirrorPlan", "mirror", "op_flops"]

POLICIES = ("sqrt", "mirror", "budget")
CHEAP_FLOPS_PER_ELEMENT = 16  # relu, add, bias, pooling 2x2/3x3: recomputed by "mirror"
# a node's name, not its op, says it is backward: the Gradient pass's nodes are in this scope
# (and linear's gradient is a matmul), while an op with TIsBackward may run forward too
# (conv2d_transpose is _conv2d_backward_data)
_GRADIENT_SCOPE = re.compile(r"(^|/)gradients(_\d+)?/")


@dataclass
class MirrorPlan:
    """What the Mirror pass chose (graph attribute ``mirror_plan``).

    Attributes
    ----------
    policy : str or None
        ``"sqrt"``, ``"mirror"``, ``"budget"``, or None (only ``tf.recompute_scope`` hints).
    budget_bytes : int or None
        The segment budget used (given, or found by ``"sqrt"``'s search).
    checkpoints : list of str
        Forward nodes kept as segment boundaries.
    recomputed : list of (mirror node name, op, bytes, FLOPs)
        One row per mirror node, in forward order.
    kept_bytes, kept_bytes_before : int
        Bytes of forward outputs the backward reads as they are, with and without the pass.
    forward_flops : int
        FLOPs of the forward nodes (estimated by :func:`op_flops`), for comparison.
    segments : int
    """

    policy: str | None
    budget_bytes: int | None = None
    checkpoints: list = field(default_factory=list)
    recomputed: list = field(default_factory=list)
    kept_bytes: int = 0
    kept_bytes_before: int = 0
    forward_flops: int = 0
    segments: int = 0

    @property
    def extra_flops(self) -> int:
        """FLOPs the recomputation adds to a step."""
        return sum(row[3] for row in self.recomputed)

    @property
    def recomputed_names(self) -> set:
        return {row[0] for row in self.recomputed}


def op_flops(node: Node, in_shapes: list, out_shapes: list) -> int:
    """An estimate of the FLOPs one run of ``node`` does: its op's ``FFlops`` (``2 m n k`` for
    matmul, ``2 x out x (in channels x kernel)`` for convolutions and linear, pooling's window
    per output element), else one per element of its largest input or output (elementwise ops,
    reductions)."""
    rule = node.op.attr("FFlops")
    flops = rule(node.attrs, in_shapes, out_shapes) if rule is not None else None
    if flops is not None:
        return flops
    return max([math.prod(s) for s in in_shapes] + [sum(math.prod(s) for s in out_shapes)])


@register_pass("Mirror", requires=("shape", "dtype"), provides=("mirror_plan",))
def mirror(graph: Graph) -> Graph:
    """Recompute forward activations in the backward graph instead of keeping them.

    Reads ``mirror_policy`` (one of :data:`POLICIES`, or None for hints only),
    ``mirror_budget_bytes`` (``"budget"``), and the ``recompute_hints`` of the graph context
    (``tf.recompute_scope``).  Provides ``mirror_plan`` (a :class:`MirrorPlan`); ``shape`` and
    ``dtype`` are carried to the new graph.  Returns ``graph`` with only ``mirror_plan`` added
    when nothing is recomputed.  Raises GraphError for an unknown policy, and for a budget
    smaller than what one forward op needs by itself (naming the op and its bytes).
    """
    policy = graph.attrs.get("mirror_policy")
    if policy is not None and policy not in POLICIES:
        raise GraphError(f"unknown mirror policy {policy!r}; one of {POLICIES}")
    info = _GraphInfo(graph)
    if not info.read_by_backward:  # no backward pass (an initialiser, an inference run)
        return graph.with_attrs(mirror_plan=MirrorPlan(policy))
    keep = _choose_kept(info, policy, graph.attrs.get("mirror_budget_bytes"))
    plan = MirrorPlan(policy, keep.budget, [n.name for n in keep.checkpoints],
                      forward_flops=sum(info.flops(n) for n in info.forward),
                      kept_bytes_before=sum(info.nbytes(n) for n in info.read_by_backward))
    mirrors = _mirror_nodes(info, keep.recompute)
    read = {e.node for m in mirrors.values() for e in m.inputs} | set(info.read_by_backward)
    plan.kept_bytes = sum(info.nbytes(n) for n in info.forward if n in read and n not in mirrors)
    plan.segments = len(set(keep.segment.values())) if keep.segment else 0
    if not mirrors:
        return graph.with_attrs(mirror_plan=plan)
    plan.recomputed = [(m.name, m.op.name, info.nbytes(n), info.flops(n))
                       for n, m in mirrors.items()]
    redirected = _redirect_backward(info, mirrors)
    controls = _barriers(info, mirrors, redirected, keep.segment)
    return _rebuild(graph, info, mirrors, redirected, controls).with_attrs(mirror_plan=plan)


class _GraphInfo:
    """The graph split into forward and backward nodes, with sizes, readers and FLOPs."""

    def __init__(self, graph: Graph):
        self.graph, self.indexed = graph, graph.indexed
        self.shapes, self.dtypes = graph.attrs["shape"], graph.attrs["dtype"]
        nodes = self.indexed.nodes
        backward = set()
        for node in nodes:  # execution order: a node's inputs are classified before it
            if node.op is not None and (_GRADIENT_SCOPE.search(node.name)
                                        or any(d in backward for d in node_deps(node))):
                backward.add(node)
        self.backward = backward
        self.forward = [n for n in nodes if n.op is not None and n not in backward]
        self.users: dict[Node, list[Node]] = {n: [] for n in nodes}
        for node in nodes:
            for dep in node_deps(node):
                self.users[dep].append(node)
        self.read_by_backward = [n for n in self.forward
                                 if any(u in backward for u in self._readers(n))]
        self.hints = {}
        for node in self.forward:
            hints = getattr(node.graph, "recompute_hints", None)
            if hints and node.name in hints:
                self.hints[node] = bool(hints[node.name])

    def _readers(self, node):
        return [u for u in self.users[node] if any(e.node is node for e in u.inputs)]

    def entries(self, node) -> range:
        first = self.indexed.entry_rptr[self.indexed.node_id[node]]
        return range(first, first + node.num_outputs())

    def nbytes(self, node) -> int:
        return sum(math.prod(self.shapes[e]) * DTYPE_SIZE[self.dtypes[e]]
                   for e in self.entries(node))

    def elements(self, node) -> int:
        return sum(math.prod(self.shapes[e]) for e in self.entries(node))

    def flops(self, node) -> int:
        ins = [self.shapes[self.indexed.entry_id(e)] for e in node.inputs]
        return op_flops(node, ins, [self.shapes[e] for e in self.entries(node)])

    def recomputable(self, node) -> bool:
        """A forward node whose second run gives the same values and changes nothing."""
        op = node.op
        # a node holding subgraphs (a loop) may draw or assign inside, and its backward reads
        # what its own run kept: never run twice
        return not (node.control_deps or node.attr_list("FMutateInputs")
                    or op.attr("TRandom") or "seed" in node.attrs or op.attr("TSubgraphs")
                    or op.attr("FLuaCompute") is None or node.num_outputs() == 0
                    or any(e.node.op is not None and e.node.attr_list("FMutateInputs")
                           for e in node.inputs))

    def split_points(self) -> set:
        """Forward nodes no other forward value crosses: every forward value made before one
        is read at the latest by it (Chen's candidate stage boundaries)."""
        position = {n: i for i, n in enumerate(self.forward)}
        crossing = [0] * (len(self.forward) + 1)
        for node in self.forward:
            last = max((position[u] for u in self._readers(node) if u in position), default=0)
            if last > position[node] + 1:  # crosses the nodes strictly between
                crossing[position[node] + 1] += 1
                crossing[last] -= 1
        points, running = set(), 0
        for i, node in enumerate(self.forward):
            running += crossing[i]
            if running == 0:
                points.add(node)
        return points


@dataclass
class _Kept:
    recompute: set
    checkpoints: list
    segment: dict  # forward node -> segment index (0 first)
    budget: int | None = None


def _choose_kept(info: _GraphInfo, policy, budget) -> _Kept:
    """Which forward nodes to recompute, by the policy then the hints."""
    candidates = [n for n in info.forward if info.recomputable(n)]
    if policy == "mirror":
        recompute = {n for n in candidates
                     if info.flops(n) <= CHEAP_FLOPS_PER_ELEMENT * max(info.elements(n), 1)}
        checkpoints = [n for n in info.forward if n not in recompute]
        budget = None
    elif policy in ("budget", "sqrt"):
        if policy == "budget":
            _check_budget(info, candidates, budget)
        else:
            budget = _search_budget(info, candidates)
        checkpoints, recompute = _greedy(info, candidates, budget)
    else:
        checkpoints, recompute = [], set()
    for node, wanted in info.hints.items():
        if wanted and info.recomputable(node):
            recompute.add(node)
        elif not wanted:
            recompute.discard(node)
    kept = [n for n in info.forward if n not in recompute]
    segment, index = {}, 0
    for node in info.forward:
        segment[node] = index
        index += node in kept  # a kept node ends its segment
    return _Kept(recompute, [n for n in checkpoints if n not in recompute], segment, budget)


def _check_budget(info: _GraphInfo, candidates: list, budget) -> None:
    """A segment must hold at least one op's outputs and the op outputs it reads (variables
    and feeds are not part of a segment); the error names the op needing the most."""
    if not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0:
        raise GraphError(f"the budget policy needs budget_bytes, a positive int, got "
                         f"{budget!r}")

    def need(node):
        ids = [info.indexed.entry_id(e) for e in node.inputs if e.node.op is not None]
        return info.nbytes(node) + sum(math.prod(info.shapes[e]) * DTYPE_SIZE[info.dtypes[e]]
                                       for e in ids)
    node = max(candidates, key=need, default=None)
    if node is not None and need(node) > budget:
        raise GraphError(f"memory budget of {budget} bytes is smaller than what "
                         f"{node.describe()} needs by itself: {need(node)} bytes for its "
                         f"outputs and the activations it reads")


def _greedy(info: _GraphInfo, candidates: list, budget: int):
    """Chen's Algorithm 3: ``(checkpoints, recomputed)`` for segment budget ``budget``; the
    nodes after the last checkpoint are kept (the backward starts there: nothing to save)."""
    recomputable, splits = set(candidates), info.split_points()
    checkpoints, segment, total = [], [], 0
    for node in info.forward:
        if node not in recomputable:
            continue
        total += info.nbytes(node)
        segment.append(node)
        if node in splits and total > budget:
            checkpoints.append(node)
            segment, total = [], 0
    recompute = recomputable - set(checkpoints) - set(segment)
    return checkpoints, recompute


def _search_budget(info: _GraphInfo, candidates: list) -> int:
    """The segment budget whose plan has the least estimated peak (:func:`_estimate`), over
    budgets growing by sqrt(2) from one node's bytes to all of them."""
    sizes = [info.nbytes(n) for n in candidates]
    budgets, budget = [], max(min(sizes, default=1), 1)
    while budget <= 2 * sum(sizes):
        budgets.append(budget)
        budget = math.ceil(budget * math.sqrt(2))
    # at equal cost the larger budget: fewer checkpoints, segments that do get recomputed
    return min(budgets, key=lambda b: (_estimate(info, candidates, b), -b)) if budgets else 0


def _estimate(info: _GraphInfo, candidates: list, budget: int) -> int:
    """A plan's peak as Chen estimates it: the bytes kept through the forward pass (the
    checkpoints, and what the backward reads and is not recomputed) plus the largest
    segment twice (a segment's recomputed values and their gradients live together)."""
    checkpoints, recompute = _greedy(info, candidates, budget)
    kept = set(checkpoints) | (set(info.read_by_backward) - recompute)
    largest, running, ends = 0, 0, set(checkpoints)
    for node in candidates:
        running = 0 if node in ends else running + info.nbytes(node)
        largest = max(largest, running)
    return sum(info.nbytes(n) for n in kept) + 2 * largest


def _mirror_nodes(info: _GraphInfo, recompute: set) -> dict:
    """``{forward node: its mirror}`` for the recomputed nodes the backward reads, and the
    recomputed nodes those read; in forward order.  A mirror reads kept entries as they are
    and recomputed ones through their mirrors; it has no control dependencies yet."""
    needed, stack = set(), [n for n in info.read_by_backward if n in recompute]
    while stack:
        node = stack.pop()
        if node not in needed:
            needed.add(node)
            stack.extend(e.node for e in node.inputs if e.node in recompute)
    mirrors: dict[Node, Node] = {}
    for node in info.forward:
        if node in needed:
            inputs = [NodeEntry(mirrors.get(e.node, e.node), e.index) for e in node.inputs]
            mirrors[node] = Node(node.op, f"{node.name}.mirror", node.attrs, inputs,
                                 source=node.source, graph=node.graph)
    return mirrors


def _redirect_backward(info: _GraphInfo, mirrors: dict) -> dict:
    """``{backward node: its inputs}`` with each recomputed entry read through its mirror."""
    redirected = {}
    for node in info.indexed.nodes:
        if node in info.backward and any(e.node in mirrors for e in node.inputs):
            redirected[node] = [NodeEntry(mirrors.get(e.node, e.node), e.index)
                                for e in node.inputs]
    return redirected


def _barriers(info, mirrors, redirected, segment) -> dict:
    """``{mirror: [nodes it waits for]}``: each segment's first mirrors wait for the backward
    work of the nearest segment above whose values the backward reads, except what depends on
    this segment's mirrors or writes a variable a mirror of it or below still has to read (so
    OrderMutation can still order every reader before its writer)."""
    def inputs_of(node):
        return redirected.get(node, node.inputs)
    users: dict[Node, list[Node]] = {m: [] for m in mirrors.values()}
    for node in list(info.indexed.nodes) + list(mirrors.values()):
        for dep in [e.node for e in inputs_of(node)] + list(node.control_deps):
            users.setdefault(dep, []).append(node)
    by_segment: dict[int, list[Node]] = {}
    for node, copy in mirrors.items():
        by_segment.setdefault(segment[node], []).append(copy)
    readers: dict[int, dict] = {}  # segment -> backward nodes reading its values (kept, mirror)
    origin = {copy: node for node, copy in mirrors.items()}
    for node in [n for n in info.indexed.nodes if n in info.backward]:
        for entry in inputs_of(node):
            source = origin.get(entry.node, entry.node)
            if source in segment:
                readers.setdefault(segment[source], {})[node] = True
    controls, upper = {}, None
    for index in sorted(set(by_segment) | set(readers), reverse=True):
        copies = by_segment.get(index, [])
        if copies and upper is not None:
            roots = [c for c in copies if not any(e.node in origin for e in c.inputs)]
            waits = _segment_barrier(info, copies, upper, users, mirrors, segment, index)
            for root in roots:
                controls[root] = waits
                for node in waits:
                    users.setdefault(node, []).append(root)
        upper = readers.get(index, upper)
    return controls


def _segment_barrier(info, copies, upper_readers, users, mirrors, segment, index) -> list:
    """The sinks of: descendants of ``upper_readers`` that depend neither on ``copies`` nor on
    a write of a variable read by a mirror of segment ``index`` or below, or after them."""
    after_copies = _descendants(copies, users)
    later_mirrors = [m for n, m in mirrors.items() if segment[n] <= index]
    read_later = {e.node for m in list(after_copies) + later_mirrors
                  for e in m.inputs if e.node.op is None}
    work = _descendants(upper_readers, users) - after_copies
    blocked = [n for n in work if n.op is not None and any(
        n.inputs[i].node in read_later for i in n.attr_list("FMutateInputs"))]
    work -= _descendants(blocked, users)
    sinks = [n for n in work if not any(u in work for u in users.get(n, ()))]
    rank = {n: i for i, n in enumerate(info.indexed.nodes)}
    rank.update({m: rank[n] + 0.5 for n, m in mirrors.items()})
    return sorted(sinks, key=rank.__getitem__)  # the same graph gives the same order


def _descendants(starts, users) -> set:
    seen, stack = set(starts), list(starts)
    while stack:
        for user in users.get(stack.pop(), ()):
            if user not in seen:
                seen.add(user)
                stack.append(user)
    return seen


def _rebuild(graph: Graph, info: _GraphInfo, mirrors, redirected, controls) -> Graph:
    """The new graph: backward nodes reading mirrors, mirrors waiting for their barriers, and
    every node downstream of a change rebuilt (nodes of ``graph`` are never changed)."""
    origin = {copy: node for node, copy in mirrors.items()}

    def deps(node):
        return ([e.node for e in redirected.get(node, node.inputs)] + list(node.control_deps)
                + controls.get(node, []))
    order = _dfs_postorder([e.node for e in graph.outputs], deps)
    built: dict[Node, Node] = {}
    for node in order:
        inputs = [NodeEntry(built.get(e.node, e.node), e.index)
                  for e in redirected.get(node, node.inputs)]
        deps_now = [built.get(c, c) for c in list(node.control_deps) + controls.get(node, [])]
        if node in origin or inputs != node.inputs or deps_now != node.control_deps:
            built[node] = Node(node.op, node.name, node.attrs, inputs, deps_now,
                               source=node.source, graph=node.graph)
    outputs = [NodeEntry(built.get(e.node, e.node), e.index) for e in graph.outputs]
    result = Graph(outputs, {k: v for k, v in graph.attrs.items() if k not in ("shape", "dtype")})
    source_of = {new: origin.get(old, old) for old, new in built.items()}
    for key in ("shape", "dtype"):
        values = []
        for node in result.indexed.nodes:
            values.extend(info.graph.attrs[key][e] for e in info.entries(source_of.get(node, node)))
        result.attrs[key] = values
    return result
