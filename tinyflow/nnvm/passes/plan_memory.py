"""PlanMemory: give every entry a storage id so that entries whose lives do not overlap share.

Reference counting over the execution order: an entry's storage returns to a free pool once its
last reader has run.  An op output takes over an input's storage in place when the op allows it
(FInplaceOption) and that input has no other reader; otherwise it takes the best-fitting free
storage (growing it if needed) or a new one.  Variables and placeholders are external (storage
id -1) and never overwritten, except by ops that declare FMutateInputs (``assign``), whose output
is the variable itself, and those the graph's attribute ``donated_inputs`` names (a loop body's
inputs reloaded every iteration): an op may write such a one in place when it is its only reader
(its output is then that input's buffer).  Graph outputs (fetched entries) are never freed, so
never overwritten.
"""
from __future__ import annotations

import math

from ..graph import Graph, register_pass
from .infer import DTYPE_SIZE

__all__ = ["EXTERNAL", "plan_memory"]

EXTERNAL = -1


@register_pass("PlanMemory", requires=("shape", "dtype"),
               provides=("storage_id", "storage_size", "inplace_from"))
def plan_memory(graph: Graph) -> Graph:
    """Plan storage for every entry.

    Reads ``shape`` and ``dtype``; ``graph.attrs["memory_sharing"]`` (default True) set to False
    gives every entry its own storage with no in-place reuse.  Provides ``storage_id`` (per entry,
    -1 for external), ``storage_size`` (bytes per storage id) and ``inplace_from`` (``{output
    entry id: input entry id}`` for outputs that reuse an input's storage).
    """
    indexed = graph.indexed
    shapes, dtypes = graph.attrs["shape"], graph.attrs["dtype"]
    sharing = graph.attrs.get("memory_sharing", True)
    donated = {indexed.entry_rptr[indexed.node_id[n]]
               for n in graph.attrs.get("donated_inputs", ()) if n in indexed.node_id}
    nbytes = [math.prod(s) * DTYPE_SIZE[t] for s, t in zip(shapes, dtypes)]
    ref_count = [0] * indexed.num_entries
    # a guard's value (TGuard) is read by each node it guards, when that node runs
    guard_reads = [[indexed.entry_id((g, 0)) for g in node.guards()] for node in indexed.nodes]
    for eid in [e for inputs in indexed.input_entries + guard_reads for e in inputs] + \
            indexed.outputs:
        ref_count[eid] += 1  # a fetched entry gets one more: never freed
    storage_id = [EXTERNAL] * indexed.num_entries
    inplace_from: dict[int, int] = {}
    pool = _StoragePool(sharing)
    for nid, node in enumerate(indexed.nodes):
        if node.op is None:
            continue
        inputs = indexed.input_entries[nid]
        outputs = [indexed.entry_rptr[nid] + i for i in range(node.num_outputs())]
        mutated = set(node.attr_list("FMutateInputs"))
        taken = set()
        pairs = node.attr_list("FInplaceOption")
        identity = node.attr_list("FInplaceIdentity") or [False] * len(pairs)
        for (in_index, out_index), same_elements in zip(pairs, identity):
            in_eid, out_eid = inputs[in_index], outputs[out_index]
            if out_eid in inplace_from or in_eid in taken:
                continue
            # a mutated variable's output is the variable itself; otherwise reuse an input that
            # nobody else reads, of the same dtype (a cast's bytes mean other values) and shape
            # (or size, for an output that is the input reshaped)
            if in_index in mutated or (sharing and (storage_id[in_eid] != EXTERNAL or (
                                           in_eid in donated and shapes[in_eid] == shapes[out_eid]))
                                       and ref_count[in_eid] == 1
                                       and nbytes[in_eid] == nbytes[out_eid]
                                       and (same_elements or shapes[in_eid] == shapes[out_eid])
                                       and dtypes[in_eid] == dtypes[out_eid]):
                storage_id[out_eid] = storage_id[in_eid]
                inplace_from[out_eid] = in_eid
                taken.add(in_eid)
                donated.discard(in_eid)  # its one reader wrote it; the output is it, external
        for out_eid in outputs:
            if out_eid not in inplace_from:
                storage_id[out_eid] = pool.request(nbytes[out_eid])
        for in_eid in inputs + guard_reads[nid]:
            ref_count[in_eid] -= 1
            if ref_count[in_eid] == 0 and in_eid not in taken and storage_id[in_eid] != EXTERNAL:
                pool.release(storage_id[in_eid])
        for out_eid in outputs:
            if ref_count[out_eid] == 0 and storage_id[out_eid] != EXTERNAL:
                pool.release(storage_id[out_eid])  # nobody reads it: reusable at once
    return graph.with_attrs(storage_id=storage_id, storage_size=pool.sizes,
                            inplace_from=inplace_from)


class _StoragePool:
    """Storage ids with their sizes in bytes, and those free for reuse (when sharing)."""

    def __init__(self, sharing: bool):
        self.sharing = sharing
        self.sizes: list[int] = []
        self.free: list[int] = []

    def request(self, size: int) -> int:
        """The smallest free storage that fits, else the largest free one grown to ``size``,
        else a new one."""
        if self.free:
            fits = [s for s in self.free if self.sizes[s] >= size]
            sid = min(fits, key=self.sizes.__getitem__) if fits else \
                max(self.free, key=self.sizes.__getitem__)
            self.free.remove(sid)
            self.sizes[sid] = max(self.sizes[sid], size)
            return sid
        self.sizes.append(size)
        return len(self.sizes) - 1

    def release(self, sid: int) -> None:
        if self.sharing:
            self.free.append(sid)
