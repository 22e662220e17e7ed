"""The executor: a graph bound to shapes, planned storage and one Lua closure per node.

Binding runs InferShape, InferType and PlanMemory, allocates one PyTorch tensor per planned
storage id, gives every entry a view of its storage, and runs each op body's setup.  A step then
copies the feeds into their buffers and makes a single call into Lua that runs the closures in
order.
"""
from __future__ import annotations

import math
import time

import torch

from ..lua_ops.runtime import LuaOpError, lua_runtime, lua_table, make_closure
from ..lua_ops.torch_api import scratch_scope
from ..nnvm.errors import ShapeError, TinyflowError
from ..nnvm.graph import Graph, apply_passes
from ..nnvm.passes.plan_memory import EXTERNAL

__all__ = ["BindError", "Executor", "check_initialized"]

_TORCH_DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
                 "int32": torch.int32, "int64": torch.int64, "uint8": torch.uint8}


class BindError(TinyflowError, ValueError):
    """The graph cannot be bound: an unfed placeholder, an unknown shape, a missing Lua body."""


def check_initialized(read_variables, initialized):
    """``BindError`` naming the first variable in ``read_variables`` not in ``initialized``."""
    missing = [v for v in read_variables if v not in initialized]
    if missing:
        names = ", ".join(sorted(f"'{v.name}' (created at {v.source})" for v in missing))
        raise BindError(f"variable {names} is read before it is initialised: run "
                        f"tf.global_variables_initializer() (or an assign to it) first")


class Executor:
    """One fetch set of one session, bound to the feed shapes it was built for.

    Parameters
    ----------
    outputs : list of NodeEntry
        The entries to compute (the fetches).
    feed_shapes : dict
        ``{placeholder Node: shape}`` of this run's feeds.
    variables : dict
        The session's variable store ``{variable Node: tensor}`` (tensors are created here for
        variables whose shape becomes known, e.g. by an ``assign``).
    device : torch.device
    plan_memory : bool
        False gives every entry its own storage (no sharing, no in-place).
    """

    def __init__(self, outputs, feed_shapes, variables, device, plan_memory=True,
                 initialized=None):
        self.device = device
        graph = Graph(outputs, {
            "shape_inputs": {**{v: tuple(t.shape) for v, t in variables.items()},
                             **feed_shapes},
            "memory_sharing": plan_memory,
        })
        indexed = graph.indexed
        self._check_feeds(indexed, feed_shapes)
        self.read_variables, self.assigned_variables = self._variable_use(indexed)
        if initialized is not None:
            check_initialized(self.read_variables, initialized)
        graph = apply_passes(graph, ["InferShape", "InferType"])
        self._check_known(graph)
        # inputs read only for their shape stop depending on their ops: a train step does not
        # compute the loss unless it is fetched
        materialized = apply_passes(graph, "MaterializeShapes")
        if materialized is not graph:
            graph = apply_passes(materialized, ["InferShape", "InferType"])
            indexed = graph.indexed
        graph = apply_passes(graph, "PlanMemory")
        self.graph = graph
        self.indexed = indexed
        self.feed_shapes = dict(feed_shapes)
        shapes, dtypes = graph.attrs["shape"], graph.attrs["dtype"]
        storage_id = graph.attrs["storage_id"]
        # Variables: the session's tensors; ones first seen here are created (uninitialised)
        # in new_variables, which the session adopts once the build has succeeded.
        self.new_variables = {}
        for nid in indexed.input_nodes:
            node = indexed.nodes[nid]
            if node.kind not in ("placeholder", "shape") and node not in variables:
                eid = indexed.entry_id((nid, 0))
                self.new_variables[node] = torch.zeros(
                    shapes[eid], dtype=_TORCH_DTYPES[dtypes[eid]], device=device)
        # Storages are bytes: entries of any dtype (max_pool2d's int64 argmax) share them.
        self.storages = [torch.empty(size, dtype=torch.uint8, device=device)
                         for size in graph.attrs["storage_size"]]
        tensors: list = [None] * indexed.num_entries
        self.feed_buffers = {}
        for nid, node in enumerate(indexed.nodes):
            eid = indexed.entry_id((nid, 0))
            if node.op is None:
                if node.kind == "placeholder":
                    tensors[eid] = torch.empty(shapes[eid], dtype=_TORCH_DTYPES[dtypes[eid]],
                                               device=device)
                    self.feed_buffers[node] = tensors[eid]
                elif node.kind == "shape":  # sizes without data (MaterializeShapes)
                    tensors[eid] = torch.empty((), dtype=_TORCH_DTYPES[dtypes[eid]],
                                               device=device).expand(shapes[eid])
                else:
                    tensors[eid] = variables.get(node, self.new_variables.get(node))
                continue
            for i in range(node.num_outputs()):
                out = eid + i
                if storage_id[out] != EXTERNAL:
                    tensors[out] = self._view(storage_id[out], shapes[out], dtypes[out])
                else:  # a mutated variable's output is the variable itself
                    tensors[out] = tensors[graph.attrs["inplace_from"][out]]
        self.tensors = tensors
        self.output_tensors = [tensors[e] for e in indexed.outputs]
        self.op_nodes = [nid for nid, n in enumerate(indexed.nodes) if n.op is not None]
        with scratch_scope() as scratch:  # what the bodies' setups allocate beside the plan
            self.closures = [self._closure(nid) for nid in self.op_nodes]
        self.workspace_bytes = sum({t.untyped_storage().data_ptr(): t.untyped_storage().nbytes()
                                    for t in scratch}.values())
        self.lua_closures = lua_table(self.closures)
        self.run_closures = lua_runtime().globals().torch.run_closures

    def _view(self, sid, shape, dtype):
        torch_dtype = _TORCH_DTYPES[dtype]
        nbytes = math.prod(shape) * torch_dtype.itemsize
        return self.storages[sid][:nbytes].view(torch_dtype).view(shape)

    @staticmethod
    def _check_feeds(indexed, feed_shapes):
        for nid in indexed.input_nodes:
            node = indexed.nodes[nid]
            if node.kind == "placeholder" and node not in feed_shapes:
                raise BindError(f"placeholder '{node.name}' (created at {node.source}) must be "
                                f"fed: pass it in feed_dict")

    @staticmethod
    def _check_known(graph):
        indexed, shapes = graph.indexed, graph.attrs["shape"]
        for nid, node in enumerate(indexed.nodes):
            for i in range(node.num_outputs()):
                if shapes[indexed.entry_id((nid, i))] is None:
                    raise ShapeError(f"cannot infer the shape of {node.describe()}"
                                     + (": initialise the variable first"
                                        if node.op is None else ""))

    @staticmethod
    def _variable_use(indexed):
        read, assigned = set(), set()
        for nid, node in enumerate(indexed.nodes):
            mutate = node.attr_list("FMutateInputs")
            for i, entry in enumerate(node.inputs):
                if entry.node.op is None and entry.node.kind != "placeholder":
                    (assigned if i in mutate else read).add(entry.node)
        for eid in indexed.outputs:
            node = indexed.nodes[indexed.entry_node(eid)[0]]
            if node.op is None and node.kind != "placeholder":
                read.add(node)
        return read, assigned

    def _closure(self, nid):
        node = self.indexed.nodes[nid]
        source = node.op.attr("FLuaCompute")
        if source is None:
            raise BindError(f"{node.describe()} has no Lua body (FLuaCompute)")
        first = self.indexed.entry_rptr[nid]
        inputs = [self.tensors[e] for e in self.indexed.input_entries[nid]]
        outputs = self.tensors[first:first + node.num_outputs()]
        return make_closure(node.op.name, source, inputs, outputs, node.attrs, node.describe())

    # -- running ---------------------------------------------------------------------------
    def run(self, feeds: dict, profile: dict | None = None):
        """Copy ``feeds`` ({placeholder Node: array}) in, run every closure, return outputs."""
        for node, value in feeds.items():
            self.feed_buffers[node].copy_(value)
        if profile is None:
            failed = self.run_closures(self.lua_closures, len(self.closures))
            if failed:
                index, err = failed
                self._raise(index - 1, err)
        else:
            self._run_profiled(profile)
        return self.output_tensors

    def _run_profiled(self, profile):
        sync = torch.cuda.synchronize if self.device.type == "cuda" else (lambda: None)
        pcall = lua_runtime().globals().pcall
        for i, closure in enumerate(self.closures):
            start = time.perf_counter()
            result = pcall(closure)
            sync()
            elapsed = time.perf_counter() - start
            ok = result[0] if isinstance(result, tuple) else result
            if not ok:
                self._raise(i, result[1])
            node = self.indexed.nodes[self.op_nodes[i]]
            key = node.op.name
            total, calls = profile.get(key, (0.0, 0))
            profile[key] = (total + elapsed, calls + 1)

    def _raise(self, index, err):
        node = self.indexed.nodes[self.op_nodes[index]]
        shapes = self.graph.attrs["shape"]
        in_shapes = ", ".join(str(shapes[e]) for e in self.indexed.input_entries[
            self.op_nodes[index]])
        raise LuaOpError(f"{node.describe()} failed while running (input shapes {in_shapes}): "
                         f"{err}")
