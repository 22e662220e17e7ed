"""What a bound executor holds: its memory plan (bytes, storages, in-place pairs) and the Lua
closures a step runs."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..nnvm.passes.infer import DTYPE_SIZE
from ..nnvm.passes.plan_memory import EXTERNAL
from .stages import StagedExecutor

__all__ = ["ClosureReport", "MemoryPlanReport", "closure_report", "memory_plan_report"]


@dataclass
class MemoryPlanReport:
    """The plan of one executor.

    Attributes
    ----------
    planned_bytes : int
        Storage allocated for the graph's op outputs under the plan (sum of storage sizes).
    naive_bytes : int
        What those outputs would take with every entry its own buffer (no in-place, no sharing).
    param_bytes, input_bytes : int
        Variables and fed placeholders (not planned; reported apart).
    workspace_bytes : int
        Scratch buffers and constants the op bodies set up beside the plan (channels-last
        copies for pooling, padded buffers...), allocated once per executor.
    num_storages : int
    inplace_pairs : list of (output entry name, input entry name)
    rows : list of (entry name, op, shape, storage id, bytes, in-place from or "")
    mirror : tinyflow.nnvm.passes.MirrorPlan or None
        What the Mirror pass chose (``Session(memory=...)``), else None.
    loops : list of (node name, subgraphs' planned bytes, bytes per iteration, trips)
        Per node holding subgraphs (a while_loop, its backward): the bytes of its subgraphs'
        own plans (bound once, reused every iteration), and for a loop whose backward is
        bound too the bytes one iteration keeps for it (its loop variables), and the trips
        of the last run (0 before one): the backward keeps bytes per iteration x trips.
    carried : dict
        ``{node name: count}`` per such node: its loop variables (for a loop's backward, their
        gradients) whose storage flows through the body without a copy per iteration (the
        body writes that input in place into its output, as a TensorArray's write does).
    run_time_shaped : list of str
        The outputs whose shape is known only once they ran (``TShapeAtRunTime``), when ops
        read them: this plan is then stage 1 (tinyflow/executor/stages.py), empty otherwise.
    later : list of (shapes, MemoryPlanReport)
        The later stages bound so far, one per shapes of those outputs seen at run time.
    """

    planned_bytes: int
    naive_bytes: int
    param_bytes: int
    input_bytes: int
    workspace_bytes: int
    num_storages: int
    inplace_pairs: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    mirror: object = None
    loops: list = field(default_factory=list)
    carried: dict = field(default_factory=dict)
    run_time_shaped: list = field(default_factory=list)
    later: list = field(default_factory=list)

    @property
    def kept_by_loops(self) -> int:
        """The bytes loops kept for their backward in the last run (per iteration x trips)."""
        return sum(per_iteration * trips for _, _, per_iteration, trips in self.loops)

    @property
    def recomputed(self) -> list:
        """``(mirror node, op, bytes, FLOPs)`` per recomputed op (empty without the pass)."""
        return list(self.mirror.recomputed) if self.mirror is not None else []

    @property
    def extra_flops(self) -> int:
        """FLOPs a step spends recomputing (0 without the pass)."""
        return self.mirror.extra_flops if self.mirror is not None else 0

    def __str__(self) -> str:
        lines = [f"{'entry':<32}{'op':<22}{'shape':<20}{'storage':>8}{'bytes':>12}  in-place from"]
        for name, op, shape, sid, nbytes, source in self.rows:
            lines.append(f"{name:<32}{op:<22}{shape!s:<20}{sid:>8}{nbytes:>12}  {source}")
        lines.append(
            f"planned {self.planned_bytes / 1e6:.3f} MB in {self.num_storages} storages, "
            f"naive {self.naive_bytes / 1e6:.3f} MB "
            f"({self.planned_bytes / max(self.naive_bytes, 1):.1%}); "
            f"{len(self.inplace_pairs)} in-place; parameters {self.param_bytes / 1e6:.3f} MB, "
            f"fed inputs {self.input_bytes / 1e6:.3f} MB; op workspace "
            f"{self.workspace_bytes / 1e6:.3f} MB")
        if self.mirror is not None:
            lines.extend(_mirror_lines(self.mirror))
        for name, planned, per_iteration, trips in self.loops:
            lines.append(f"loop {name}: subgraphs planned {planned} bytes, reused every "
                         f"iteration" + (f"; kept for the backward {per_iteration} bytes per "
                                         f"iteration x {trips} trips = {per_iteration * trips} "
                                         f"bytes (last run)" if per_iteration else "")
                         + f"; {self.carried.get(name, 0)} loop variables carried without "
                           f"copies")
        lines.extend(_later_lines(self))
        return "\n".join(lines)


def _later_lines(report) -> list:
    """What a staged executor binds at run time (tinyflow/executor/stages.py)."""
    if not report.run_time_shaped:
        return []
    names = ", ".join(report.run_time_shaped)
    lines = [(f"stage 1 above; shapes known once they ran: {names}; the ops reading them are "
              f"bound per shapes seen ({len(report.later)} so far)")]
    for shapes, later in report.later:
        lines.append(f"-- stage 2 for shapes {', '.join(str(s) for s in shapes)}:")
        lines.append(str(later))
    return lines


def _mirror_lines(plan) -> list:
    lines = [f"recomputed ({plan.policy or 'hints'} policy, {plan.segments} segments"
             + (f", budget {plan.budget_bytes} bytes" if plan.budget_bytes else "") + "):"]
    lines.extend(f"  {name:<38}{op:<22}{nbytes:>12} bytes{flops:>16} FLOPs"
                 for name, op, nbytes, flops in plan.recomputed)
    lines.append(f"forward bytes kept for the backward pass {plan.kept_bytes / 1e6:.3f} MB "
                 f"(without recomputing {plan.kept_bytes_before / 1e6:.3f} MB); "
                 f"{len(plan.recomputed)} ops recomputed, {plan.extra_flops / 1e6:.1f} MFLOPs "
                 f"extra ({plan.extra_flops / max(plan.forward_flops, 1):.0%} of the forward "
                 f"pass)")
    return lines


def memory_plan_report(executor) -> MemoryPlanReport:
    """The :class:`MemoryPlanReport` of a bound :class:`~tinyflow.executor.Executor` (of a
    :class:`~tinyflow.executor.StagedExecutor`: its stage 1's, with its later stages')."""
    if isinstance(executor, StagedExecutor):
        report = memory_plan_report(executor.first)
        report.run_time_shaped = list(executor.run_time_names)
        report.later = [(shapes, memory_plan_report(later))
                        for shapes, later in executor.later.items()]
        return report
    graph, indexed = executor.graph, executor.indexed
    shapes, dtypes = graph.attrs["shape"], graph.attrs["dtype"]
    storage_id, inplace_from = graph.attrs["storage_id"], graph.attrs["inplace_from"]

    def nbytes(eid):
        return math.prod(shapes[eid]) * DTYPE_SIZE[dtypes[eid]]

    def entry_name(eid):
        nid, index = indexed.entry_node(eid)
        node = indexed.nodes[nid]
        return node.name if node.num_outputs() == 1 else f"{node.name}:{index}"

    rows, naive, params, inputs = [], 0, 0, 0
    for nid, node in enumerate(indexed.nodes):
        first = indexed.entry_rptr[nid]
        if node.op is None:
            if node.kind == "placeholder":
                inputs += nbytes(first)
            elif node.kind == "variable":
                params += nbytes(first)
            continue
        for eid in range(first, first + node.num_outputs()):
            if storage_id[eid] == EXTERNAL:  # an assign's output: the variable itself
                continue
            naive += nbytes(eid)
            source = entry_name(inplace_from[eid]) if eid in inplace_from else ""
            run_time = (node.name, eid - first) in executor.run_time_shaped
            rows.append((entry_name(eid), node.op.name, "at run" if run_time else shapes[eid],
                         storage_id[eid], 0 if run_time else nbytes(eid), source))
    pairs = [(entry_name(o), entry_name(i)) for o, i in inplace_from.items()
             if storage_id[o] != EXTERNAL]
    # the loops run here (a later stage also holds the state of a loop stage 1 ran)
    loops = [(node, state) for node, state in executor.loop_states.items() if node.op]
    return MemoryPlanReport(
        planned_bytes=sum(graph.attrs["storage_size"]), naive_bytes=naive, param_bytes=params,
        input_bytes=inputs, workspace_bytes=executor.workspace_bytes,
        num_storages=len(graph.attrs["storage_size"]),
        inplace_pairs=pairs, rows=rows, mirror=graph.attrs.get("mirror_plan"),
        loops=[(node.name, sum(sum(inner.graph.attrs["storage_size"])
                               for inner in state.executors),
                state.bytes_per_iteration, state.trips) for node, state in loops],
        carried={node.name: int((state.table.carried_gradients if node.op.attr("TStateOfInput")
                                 is not None else state.table.carried) or 0)
                 for node, state in loops})


@dataclass
class ClosureReport:
    """The Lua closures of one executor, in the order a step runs them: one per op node (but
    the shape-only nodes computed once at bind, see ``Executor._own_constants``).

    Attributes
    ----------
    rows : list of (node name, op, input shapes, output shapes, Lua body source)
        The body is the op's FLuaCompute source; its setup ran once at bind time with these
        shapes and the node's attributes, and returned the closure.
    fused : dict
        ``{node name: [line, ...]}`` of the ``_fused`` nodes (``Session(config='cpu
        fusion')``): the generated code, one line per op the node contains.
    later : list of (shapes, ClosureReport)
        A staged executor's later stages bound so far (its rows are stage 1's).
    """

    rows: list = field(default_factory=list)
    fused: dict = field(default_factory=dict)
    later: list = field(default_factory=list)

    def __str__(self) -> str:
        def shapes(values):
            return ", ".join(str(s) for s in values)
        lines = []
        for i, (name, op, ins, outs, _) in enumerate(self.rows):
            arrow = f"{shapes(ins)} -> " if ins else "-> "  # ops such as ones take no input
            lines.append(f"{i:>3} {name:<21} {op:<21} {arrow}{shapes(outs)}")
            lines.extend(f"      | {line}" for line in self.fused.get(name, ()))
        for sizes, later in self.later:  # a staged executor's later stages bound so far
            lines.append(f"-- stage 2, bound at run time for shapes {shapes(sizes)}:")
            lines.append(str(later))
        return "\n".join(lines)


def closure_report(executor) -> ClosureReport:
    """The :class:`ClosureReport` of a bound :class:`~tinyflow.executor.Executor`: the graph
    it actually runs, after any rewrite binding made (a staged one's: stage 1's, then its
    later stages')."""
    if isinstance(executor, StagedExecutor):
        report = closure_report(executor.first)
        report.later = [(shapes, closure_report(later))
                        for shapes, later in executor.later.items()]
        return report
    graph, indexed = executor.graph, executor.indexed
    shapes = graph.attrs["shape"]
    rows = []
    for nid in executor.op_nodes:  # not the shape-only nodes computed once at setup
        node, first = indexed.nodes[nid], indexed.entry_rptr[nid]
        rows.append((node.name, node.op.name,
                     [shapes[e] for e in indexed.input_entries[nid]],
                     [shapes[e] for e in range(first, first + node.num_outputs())],
                     node.op.attr("FLuaCompute")))
    fused = {node.name: list(node.attrs["members"]) for node in indexed.nodes
             if node.kind == "_fused"}
    return ClosureReport(rows, fused)
