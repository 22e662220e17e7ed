"""The executor: a graph bound to shapes, planned storage and one Lua closure per node.

Building one takes three steps, each a method below:

1. :meth:`Executor._bind` runs the passes once, those of the table in
   :mod:`tinyflow.executor.pipeline` that the session's options ask for (InferShape and
   InferType from the feeds' and variables' shapes, ..., OrderMutation, PlanMemory), and checks
   the plan fits the device.  The session's store then makes the tensors of the variables this
   bind shaped first.
2. :meth:`Executor._allocate` (from :meth:`Executor.allocate`) turns the plan into PyTorch
   storage: one byte tensor per storage id, a view of it per entry, a buffer per fed
   placeholder, and the store's tensor per variable.
3. :meth:`Executor._make_closures` runs each op body's setup and keeps its per-step closure.
   A seeded random node's body also gets its session's generator for that node
   (``kwarg.generator``, from the store's :class:`~tinyflow.session.random_streams.RandomStreams`),
   so its numbers continue from one executor of the session to the next.

A step (:meth:`Executor.run`) then copies the feeds into their buffers and makes a single call
into Lua that runs the closures in order.  An executor's storage serves one step at a time: the
session checks executors out of its :class:`~tinyflow.executor.cache.ExecutorCache`, so two
threads never run the same one at once, and :meth:`Executor.free` gives the storage back.

Before allocating, the shapes are checked (no negative dimension, at most 2**63 - 1 bytes:
``ShapeError``) and so is the memory the plan needs against what the device can give
(:mod:`tinyflow.executor.memory`: ``ResourceExhaustedError`` naming op, node, shape and bytes).
"""
from __future__ import annotations

import functools
import math
import time

import numpy as np
import torch

from ..lua_ops.runtime import (
    LuaOpError,
    call_closure,
    guarded,
    interruptible,
    is_python_step,
    lua_table,
    make_closure,
    run_closures,
    run_deadline,
)
from ..lua_ops.scratch import scratch_scope
from ..nnvm.dtypes import TORCH_NAMES
from ..nnvm.errors import (
    BindError,
    InvalidArgumentError,
    OpError,
    ShapeError,
    UnfedPlaceholderError,
)
from ..nnvm.graph import CHANNELS_LAST, Graph, apply_passes
from ..nnvm.passes.fold_shapes import ValuesAtRunTime
from ..nnvm.passes.plan_memory import EXTERNAL
from .cuda_graph import GraphedStep
from .memory import Buffer, ResourceExhaustedError, check_fits, check_shape_sizes
from .pipeline import bind_passes
from .stages import StagedBind, StagedExecutor, run_time_outputs
from .subgraphs import subgraph_kwargs, subgraph_variables
from .threads import ThreadChoice

__all__ = ["BindError", "Executor", "bind_executor"]

_TORCH_DTYPES = {name: getattr(torch, attr) for name, attr in TORCH_NAMES.items()}

_PYTHON_SHAPE = (": its value comes from Python when it runs (tf.py_func), and the ops reading "
                 "it need its shape before: fetch it directly, or set_shape it fully")


class Executor:
    """One fetch set of one session, bound to the feed shapes it was built for.

    Built in two calls, so that a variable's tensor comes from the session's store alone:
    ``Executor(...)`` binds (the passes, the memory check); the session then has the store make
    the tensors of the variables this bind shaped first (:meth:`unstored_variables`), and
    :meth:`allocate` takes every variable's tensor from the store.

    Parameters
    ----------
    outputs : list of NodeEntry
        The entries to compute (the fetches).
    feed_shapes : dict
        ``{placeholder Node: shape}`` of this run's feeds.
    fed_entries : dict, optional
        ``{NodeEntry: input Node}``: fed tensors that are not placeholders, each with the
        placeholder-like node standing for it (a key of ``feed_shapes``); the CutFeeds pass
        makes their readers read it.
    donated : iterable of placeholder Node, optional
        Placeholders whose feed buffers the step may overwrite (a loop body's loop variables,
        reloaded every iteration): an op that is a donated input's only reader may write it in
        place (PlanMemory's ``donated_inputs``).
    variables : tinyflow.session.variables.VariableStore
        The session's variables.  Every variable the graph reads must hold a value (or have an
        initialiser waiting).
    options : tinyflow.session.options.SessionOptions
        The session's options: its device, ``plan_memory`` (False: every entry its own storage),
        the passes to run (:func:`~tinyflow.executor.pipeline.bind_passes`: the memory policy
        for Mirror, ``fusion`` for FuseElemwise, ``optimize``) and ``graph`` (run the step as
        captured segments, :class:`~tinyflow.executor.cuda_graph.GraphedStep`).
    """

    def __init__(self, outputs, feed_shapes, variables, options, fed_entries=None, donated=(),
                 input_values=None):
        self.device = torch.device(options.device_type)
        self.feed_shapes = dict(feed_shapes)
        self.input_values = dict(input_values or {})  # a later stage's (stages.py)
        self.fed_entries = dict(fed_entries or {})
        self.donated = frozenset(donated)
        self.options = options
        # CPU runs: the session's fixed count, or chosen by timing (threads.py); 0: torch's
        # count as it is, never switched (TF_DETERMINISTIC_OPS, session/options.py)
        self.threads = ThreadChoice(options.threads) if self.device.type == "cpu" \
            and options.threads != 0 else None
        self.loop_states = {}  # looping node -> LoopState (subgraphs.py)
        self.graph = self._bind(outputs, variables)
        self.indexed = self.graph.indexed
        self.buffers = self._buffers(variables)
        check_fits(self.buffers, self.device)  # before torch's allocator, which names no op

    def allocate(self, variables) -> None:
        """Allocate the plan (every variable the graph reads has its tensor in ``variables``
        now) and make the closures: the executor can run."""
        self._allocate(variables)
        self.store = variables  # nested executors (a loop's body) take their variables from it
        self._make_closures(variables.random_streams, variables.resources)
        self.graphed = GraphedStep(self) if self.options.graph else None

    # -- 1. bind: the passes, once -------------------------------------------------------------
    def _bind(self, outputs, variables) -> Graph:
        options = self.options
        graph = Graph(outputs, {
            "shape_inputs": {**variables.shapes(), **self.feed_shapes},
            "memory_sharing": options.plan_memory, "mirror_policy": options.memory_policy,
            "mirror_budget_bytes": options.memory_budget_bytes,
            "fusion_target": self.device.type, "fusion_backend": options.fusion,
            "fed_entries": self.fed_entries, "donated_inputs": self.donated,
            "input_values": self.input_values})
        hinted = any(getattr(e.node.graph, "recompute_hints", None) for e in outputs)
        self.passes = bind_passes(options, hinted)
        cut = self.passes.index("CutFeeds") + 1  # first: what fed tensors cut off is not checked
        graph = apply_passes(graph, self.passes[:cut])
        self._check_feeds(graph.indexed, self.feed_shapes)
        # before shapes: a variable without a value explains an unknown shape better
        self.read_variables, self.assigned_variables = self._variable_use(graph.indexed)
        variables.check_initialized(self.read_variables)
        inferred = self.passes.index("InferType") + 1  # shapes and types checked before rewrites
        try:
            graph = apply_passes(graph, self.passes[cut:inferred])
        except ValuesAtRunTime as late:  # shape arguments from values: bound in stages
            raise StagedBind(late.graph, [], (self.read_variables, self.assigned_variables),
                             values=late.entries, message=str(late)) from None
        # outputs sized when they run: a tensor of their own; read by ops here: StagedBind
        graph, self.run_time_shaped = run_time_outputs(
            graph, (self.read_variables, self.assigned_variables))
        self._check_known(graph)
        check_shape_sizes(graph.indexed, graph.attrs["shape"], graph.attrs["dtype"])
        self._check_no_strings(graph)
        return apply_passes(graph, self.passes[inferred:])

    def unstored_variables(self, variables) -> dict:
        """``{variable node: (shape, dtype name)}`` of the variables the graph uses that have
        no tensor in ``variables`` yet (this bind gave them their shape)."""
        indexed, attrs, unstored = self.indexed, self.graph.attrs, {}
        for nid in indexed.input_nodes:
            node, eid = indexed.nodes[nid], indexed.entry_rptr[nid]
            if node.kind not in ("placeholder", "shape") and node not in variables:
                unstored[node] = (attrs["shape"][eid], attrs["dtype"][eid])
        return unstored

    # -- 2. allocate: storages, views, feed buffers, variables ---------------------------------
    def _allocate(self, variables):
        try:
            self._allocate_checked(variables)
        except RuntimeError as err:  # the device refused after all (a limit, fragmentation)
            if "alloc" not in str(err):
                raise
            buffers = self.buffers
            largest = max(buffers, key=lambda b: b.nbytes)
            raise ResourceExhaustedError(
                f"allocating {sum(b.nbytes for b in buffers)} bytes for this run failed "
                f"({str(err).splitlines()[0]}); the largest buffer: {largest.node.describe()}'s "
                f"{largest.what} of shape {tuple(largest.shape)} {largest.dtype}, "
                f"{largest.nbytes} bytes", largest.node) from None

    def _buffers(self, variables) -> list[Buffer]:
        """What binding this plan costs: one :class:`Buffer` per storage (named by its largest
        entry), fed placeholder and variable seen first here (the store makes its tensor)."""
        indexed, attrs = self.indexed, self.graph.attrs
        shapes, dtypes, storage_id = attrs["shape"], attrs["dtype"], attrs["storage_id"]
        largest = {}  # storage id -> (bytes, entry id)
        for eid, sid in enumerate(storage_id):
            if sid != EXTERNAL and shapes[eid] is not None:
                nbytes = math.prod(shapes[eid]) * _TORCH_DTYPES[dtypes[eid]].itemsize
                largest[sid] = max(largest.get(sid, (-1, eid)), (nbytes, eid))
        buffers = []
        for sid, size in enumerate(attrs["storage_size"]):
            eid = largest[sid][1] if sid in largest else None
            if eid is not None:
                buffers.append(Buffer(size, indexed.nodes[indexed.entry_node(eid)[0]],
                                      shapes[eid], dtypes[eid], "output"))
        for nid in indexed.input_nodes:
            node, eid = indexed.nodes[nid], indexed.entry_rptr[nid]
            if node.kind == "placeholder" or (node.kind != "shape" and node not in variables):
                what = "feed buffer" if node.kind == "placeholder" else "variable"
                nbytes = math.prod(shapes[eid]) * _TORCH_DTYPES[dtypes[eid]].itemsize
                buffers.append(Buffer(nbytes, node, shapes[eid], dtypes[eid], what))
        return buffers

    def _allocate_checked(self, variables):
        indexed, attrs = self.indexed, self.graph.attrs
        shapes, dtypes, storage_id = attrs["shape"], attrs["dtype"], attrs["storage_id"]
        layouts = attrs.get("layout") or [None] * indexed.num_entries
        # Storages are bytes: entries of any dtype (max_pool2d's int64 argmax) share them.
        self.storages = [torch.empty(size, dtype=torch.uint8, device=self.device)
                         for size in attrs["storage_size"]]
        self.feed_buffers = {}
        tensors: list = [None] * indexed.num_entries
        for nid, node in enumerate(indexed.nodes):
            eid = indexed.entry_id((nid, 0))
            if node.op is not None:
                for out in range(eid, eid + node.num_outputs()):
                    tensors[out] = (self._empty((0,), dtypes[out])  # its body resizes it
                                    if (node.name, out - eid) in self.run_time_shaped
                                    else self._view(storage_id[out], shapes[out], dtypes[out],
                                                    layouts[out])
                                    if storage_id[out] != EXTERNAL  # else a mutated variable
                                    # or a donated feed buffer written in place
                                    else tensors[attrs["inplace_from"][out]])
            elif node.kind == "placeholder":
                tensors[eid] = self.feed_buffers[node] = self._empty(shapes[eid], dtypes[eid])
            elif node.kind == "shape":  # sizes without data (MaterializeShapes)
                tensors[eid] = self._empty((), dtypes[eid]).expand(shapes[eid])
            else:  # a variable: the store's tensor
                tensors[eid] = variables[node]
        self.tensors = tensors
        self.output_tensors = [tensors[e] for e in indexed.outputs]

    def _empty(self, shape, dtype):
        return torch.empty(shape, dtype=_TORCH_DTYPES[dtype], device=self.device)

    # -- 3. closures: each body's setup, once ----------------------------------------------------
    def _make_closures(self, random_streams, resources):
        self.op_nodes = [nid for nid, n in enumerate(self.indexed.nodes) if n.op is not None]
        constant = self._own_constants()
        # a fetched tensor's guarded node notes whether its branch ran (run raises if not)
        self.taken, self.fetched = {}, {self.indexed.entry_node(e)[0] for e in self.indexed.outputs}
        with scratch_scope() as scratch:  # what the bodies' setups allocate beside the plan
            self.closures = [self._closure(nid, random_streams, resources, nid not in constant)
                             for nid in self.op_nodes]
        scratch = list(scratch) + [self.tensors[self.indexed.entry_id((n, 0))] for n in constant]
        self.workspace_bytes = sum({t.untyped_storage().data_ptr(): t.untyped_storage().nbytes()
                                    for t in scratch}.values())
        if constant:  # computed once here; the steps skip them
            for i in [i for i, nid in enumerate(self.op_nodes) if nid in constant]:
                if not (ok := call_closure(self.closures[i]))[0]:
                    self._raise(i, ok[1])
            kept = [i for i, nid in enumerate(self.op_nodes) if nid not in constant]
            self.op_nodes = [self.op_nodes[i] for i in kept]
            self.closures = [self.closures[i] for i in kept]
        self.lua_closures = lua_table(self.closures)
        self.run_closures = run_closures  # Ctrl-C inside: KeyboardInterrupt (lua_ops/runtime.py)
        self.segments = self._segments()

    def _segments(self):
        """With Python steps (tf.py_func, tf.Print read by other ops): ``(start, stop, part)``
        runs of the closures, ``part`` a Lua array or one Python step, which runs outside Lua
        so that it may wait for another thread's run.  None without (one call into Lua)."""
        python = [i for i, c in enumerate(self.closures) if is_python_step(c)]
        if not python:
            return None
        segments, start = [], 0
        for i in python + [len(self.closures)]:
            if i > start:
                segments.append((start, i, lua_table(self.closures[start:i])))
            if i < len(self.closures):
                segments.append((i, i + 1, self.closures[i]))
            start = i + 1
        return segments

    def _own_constants(self) -> set:
        """Nodes whose value depends on shapes only (TFoldable ops over shape-only inputs: the
        loss's seed gradient, ones_like, its mean's broadcast, negated...), each given a tensor
        of its own outside the plan, so they run once at setup instead of every step (not
        fetched; all have 1 output)."""
        indexed, constant = self.indexed, set()
        for nid in self.op_nodes:
            node, eid = indexed.nodes[nid], indexed.entry_id((nid, 0))
            ignored = node.attr_list("FIgnoreInputs")
            if node.op.attr("TFoldable") and eid not in indexed.outputs and all(
                    indexed.node_id[e.node] in constant
                    for i, e in enumerate(node.inputs) if i not in ignored):
                constant.add(nid)
                self.tensors[eid] = torch.empty_like(self.tensors[eid])
        return constant

    def _view(self, sid, shape, dtype, layout=None):
        torch_dtype = _TORCH_DTYPES[dtype]
        nbytes = math.prod(shape) * torch_dtype.itemsize
        flat = self.storages[sid][:nbytes].view(torch_dtype)
        if layout == CHANNELS_LAST:  # NCHW sizes over NHWC bytes (ChooseLayout)
            batch, channels, height, width = shape
            return flat.view(batch, height, width, channels).permute(0, 3, 1, 2)
        return flat.view(shape)

    @staticmethod
    def _check_feeds(indexed, feed_shapes):
        for nid in indexed.input_nodes:
            node = indexed.nodes[nid]
            if node.kind == "placeholder" and node not in feed_shapes:
                raise UnfedPlaceholderError(f"placeholder '{node.name}' (created at "
                                            f"{node.source}) must be fed: pass it in feed_dict")

    @staticmethod
    def _check_known(graph):
        indexed, shapes = graph.indexed, graph.attrs["shape"]
        for nid, node in enumerate(indexed.nodes):
            for i in range(node.num_outputs()):
                if shapes[indexed.entry_id((nid, i))] is None:
                    raise ShapeError(f"cannot infer the shape of {node.describe()}"
                                     + (": initialise the variable first"
                                        if node.op is None else _PYTHON_SHAPE
                                        if node.op.attr("FPythonCompute") else ""))

    @staticmethod
    def _check_no_strings(graph):
        # string constants are answered by the session; no op body computes on strings
        indexed, dtypes = graph.indexed, graph.attrs["dtype"]
        for nid, node in enumerate(indexed.nodes):
            if node.op is not None and "string" in (
                    [dtypes[e] for e in indexed.input_entries[nid]]
                    + [dtypes[indexed.entry_rptr[nid]]]):
                raise BindError(f"{node.describe()} takes or gives a string tensor: no "
                                f"executor buffer holds a string in TinyFlow (the string ops, "
                                f"lookups and parsing run in Python before the run, outside "
                                f"any tf.cond branch or while_loop body; compute the strings "
                                f"outside it and pass their numbers in)")

    @staticmethod
    def _variable_use(indexed):
        """``(read, assigned)`` variables; an op mutating a variable reads it too, unless it
        only overwrites it (TWriteOnly: assign), so it must hold a value first."""
        read, assigned = set(), set()
        for node in indexed.nodes:
            mutate = node.attr_list("FMutateInputs")
            write_only = node.op is not None and node.op.attr("TWriteOnly", False)
            for i, entry in enumerate(node.inputs):
                if entry.node.op is None and entry.node.kind != "placeholder":
                    if i in mutate:
                        assigned.add(entry.node)
                    if i not in mutate or not write_only:
                        read.add(entry.node)
            inner_read, inner_written = subgraph_variables(node)  # a loop's body's
            read |= inner_read
            assigned |= inner_written
        for eid in indexed.outputs:
            node = indexed.nodes[indexed.entry_node(eid)[0]]
            if node.op is None and node.kind != "placeholder":
                read.add(node)
        return read, assigned

    def _closure(self, nid, random_streams, resources, guard=True):
        """Node ``nid``'s per-step closure; with ``guard`` (not a constant, which runs once
        at setup), one a tf.cond branch's guards (TGuard) run only when they all hold."""
        closure = self._body_closure(nid, random_streams, resources)
        guards = [self.tensors[self.indexed.entry_id((g, 0))]
                  for g in (self.indexed.nodes[nid].guards() if guard else ())]
        if guards and nid in self.fetched:
            return guarded(closure, guards, functools.partial(_taken, self.taken, nid))
        return guarded(closure, guards) if guards else closure

    def _body_closure(self, nid, random_streams, resources):
        node = self.indexed.nodes[nid]
        source = node.op.attr("FLuaCompute")
        first = self.indexed.entry_rptr[nid]
        inputs = [self.tensors[e] for e in self.indexed.input_entries[nid]]
        outputs = self.tensors[first:first + node.num_outputs()]
        if source is None:
            compute = node.op.attr("FPythonCompute")
            if compute is None:
                raise BindError(f"{node.describe()} has no Lua body (FLuaCompute)")
            if node.op.attr("TSessionState"):  # f(node, inputs, resources) (nnvm/attrs.py)
                compute = functools.partial(_with_resources, compute, resources)
            return python_closure(node, compute, inputs, outputs)
        kwarg = node.attrs
        if node.op.attr("TSubgraphs"):  # each bound as an executor of its own
            kwarg = subgraph_kwargs(self, nid, self.store)
        if node.op.attr("TShapeAtRunTime"):  # what sizing its output may allocate, checked;
            # in_place: it may write its output over input 0, its only reader, a buffer reloaded
            # before each run (a loop variable), as PlanMemory lets a planned output
            first_input = self.indexed.input_entries[nid][:1]
            kwarg = {**kwarg, "check_fits": functools.partial(_fits_at_run, node, self.device),
                     "in_place": bool(first_input) and node.inputs[0].node in self.donated
                     and sum(first_input[0] in ins for ins in self.indexed.input_entries) == 1}
        if kwarg.get("seed") is not None:  # one stream per node and session (random_streams.py)
            kwarg = {**kwarg, "generator": random_streams.generator(node, self.device)}
        return make_closure(node.op.name, source, inputs, outputs, kwarg, node.describe())

    def free(self) -> None:
        """Drop this executor's storage, tensors and closures (the variables stay with their
        store).  The tensors go once Lua's collector has run (``cache.release`` runs it); the
        executor cannot run again."""
        self.closures, self.lua_closures = [], None
        for state in self.loop_states.values():
            for inner in state.executors:
                inner.free()
        self.storages, self.tensors, self.output_tensors = [], [], []
        self.feed_buffers = {}
        self.graphed = None  # its segments' Lua tables and CUDA graphs hold the closures too

    # -- running ---------------------------------------------------------------------------
    def run(self, feeds: dict, profile: dict | None = None, trace: list | None = None,
            timeout_ms: int = 0):
        """Copy ``feeds`` ({placeholder Node: array}; others ignored) in, run every closure,
        return outputs.  ``profile`` ({op name: (seconds, calls)}) adds up each op's time;
        ``trace`` gets one ``(node, start, seconds)`` per op (``start`` from ``time.time()``);
        either one runs the closures one by one, timed.  ``timeout_ms``: DeadlineExceededError
        once the run took that long (TF's ``RunOptions.timeout_in_ms``).  One thread at a time:
        the outputs are views of this executor's storage, overwritten by its next run."""
        if timeout_ms:
            with run_deadline(timeout_ms):
                return self.run(feeds, profile, trace)
        if self.lua_closures is None:
            raise RuntimeError("this executor was freed (its session closed it, or its cache "
                               "dropped it): it cannot run again")
        if profile is not None or trace is not None:
            self._copy_feeds(feeds)
            self._run_timed(profile, trace)
            return self._fetched()
        if self.threads is not None:  # the feeds' copies too run on the chosen count
            self.threads.begin()
        try:
            self._copy_feeds(feeds)
            failed = self.graphed.run() if self.graphed is not None else \
                self.run_closures(self.lua_closures, len(self.closures)) \
                if self.segments is None else self._run_segments()
        finally:
            if self.threads is not None:
                self.threads.end()
        if failed:
            self._raise(failed[0] - 1, failed[1])
        return self._fetched()

    def _fetched(self):
        """The outputs, unless one is of a tf.cond branch not taken (TF: "Retval[i] does not
        have value")."""
        if not all(self.taken.values()):
            node = self.indexed.nodes[next(n for n, ran in self.taken.items() if not ran)]
            raise InvalidArgumentError(None, node.name, f"{node.describe()} did not run (a "
                                       f"tf.cond branch not taken): its value cannot be fetched")
        return self.output_tensors

    def _copy_feeds(self, feeds: dict):
        if self.graphed is not None:  # pinned, non-blocking on CUDA
            self.graphed.copy_feeds({n: v for n, v in feeds.items() if n in self.feed_buffers})
            return
        for node, value in feeds.items():  # a placeholder this graph does not read: ignored
            if node in self.feed_buffers:
                self.feed_buffers[node].copy_(value)

    def _run_segments(self):
        for start, stop, part in self.segments:
            if stop == start + 1 and is_python_step(part):
                try:
                    part()
                except Exception as err:  # noqa: BLE001 - any op's error, as a Lua closure's
                    return start + 1, err
            elif failed := run_closures(part, stop - start):
                return start + failed[0], failed[1]
        return 0

    def _run_timed(self, profile, trace):
        sync = torch.cuda.synchronize if self.device.type == "cuda" else (lambda: None)
        with interruptible():  # Ctrl-C is KeyboardInterrupt here too
            for i, closure in enumerate(self.closures):
                self._run_one_timed(i, closure, sync, profile, trace)

    def _run_one_timed(self, i, closure, sync, profile, trace):
        wall, start = time.time(), time.perf_counter()
        ok, err = call_closure(closure) if not is_python_step(closure) else _call(closure)
        sync()
        elapsed = time.perf_counter() - start
        if not ok:
            self._raise(i, err)
        node = self.indexed.nodes[self.op_nodes[i]]
        if trace is not None:
            trace.append((node, wall, elapsed))
        if profile is not None:
            total, calls = profile.get(node.op.name, (0.0, 0))
            profile[node.op.name] = (total + elapsed, calls + 1)

    def _raise(self, index, err):
        node = self.indexed.nodes[self.op_nodes[index]]
        shapes = self.graph.attrs["shape"]
        in_shapes = ", ".join(str(shapes[e]) for e in self.indexed.input_entries[
            self.op_nodes[index]])
        message = (f"{node.describe()} failed while running (input shapes {in_shapes}): "
                   f"{_text(err)}")
        if isinstance(err, ResourceExhaustedError):  # kwarg.check_fits refused: names the node
            raise err
        if isinstance(err, OpError):  # TensorFlow's run-time error class (InvalidArgumentError)
            raise type(err)(None, node.name, message) from err
        raise OpFailedError(message, node.name) from (
            err if isinstance(err, BaseException) else None)


def _taken(taken, nid, guard) -> bool:
    taken[nid] = bool(guard)  # the last guard read: false where the branch was not taken
    return taken[nid]


class OpFailedError(LuaOpError, InvalidArgumentError):
    """An op's body failed while running (an index out of range in a gather...): a LuaOpError
    naming the op, the shapes and Lua's message, and TensorFlow's InvalidArgumentError, which
    TF raises there (``except tf.errors.OpError`` catches it, as in TF)."""

    def __init__(self, message: str, op=None):
        InvalidArgumentError.__init__(self, None, op, message)


def bind_executor(outputs, feed_shapes, variables, options, fed_entries=None,
                  input_values=None):
    """An :class:`Executor` for ``outputs``, or a :class:`~tinyflow.executor.StagedExecutor`
    when ops of the graph read an output whose shape is known only once it ran, or a shape
    argument's value (stages.py).  ``input_values``: ``{input node: value}`` known at bind (a
    later stage's)."""
    try:
        return Executor(outputs, feed_shapes, variables, options, fed_entries,
                        input_values=input_values)
    except StagedBind as split:
        return StagedExecutor(split, feed_shapes, variables, options, bind_executor,
                              input_values)



def _fits_at_run(node, device, nbytes, shape) -> None:
    """``kwarg.check_fits(bytes, shape)`` of a body sizing its output as it runs."""
    check_fits([Buffer(int(nbytes), node, tuple(shape), "", "output sized as it runs")],
               device, outcome="the run stopped there, before allocating it")


def _text(err) -> str:
    """An op's error as text; one whose ``__str__`` fails is named by its type."""
    try:
        return str(err)
    except Exception:  # noqa: BLE001 - any failure of a user's __str__
        return f"{type(err).__name__} (its message could not be printed)"


def _with_resources(compute, resources, node, inputs):
    return compute(node, inputs, resources)


def _call(step):
    """A Python step timed alone: ``(True, None)`` or ``(False, error)``, as call_closure."""
    try:
        step()
    except Exception as err:  # noqa: BLE001 - any op's error, as a Lua closure's
        return False, err
    return True, None


def python_closure(node, compute, inputs, outputs):
    """The step of a node computed in Python (FPythonCompute: tf.Print, tf.py_func) that other
    ops read: its inputs' values as numpy arrays (copies), its value (a list of them for
    several outputs) copied into the outputs the plan allocated.  Lua runs it as any closure,
    so an error it raises stops the run naming the node."""
    def step():
        values = compute(node, [_numpy(t) for t in inputs])
        values = [values] if len(outputs) == 1 else list(values)
        for index, (out, value) in enumerate(zip(outputs, values)):
            value = torch.as_tensor(np.asarray(value))
            if tuple(value.shape) != tuple(out.shape):
                raise ShapeError(f"output {index} has shape {tuple(value.shape)}, but the graph "
                                 f"was bound with {tuple(out.shape)}")
            out.copy_(value)
    return step


def _numpy(tensor):
    array = tensor.detach().cpu().numpy().copy()
    return array[()] if array.ndim == 0 else array
