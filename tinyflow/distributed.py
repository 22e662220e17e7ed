"""Data-parallel training on ``torch.distributed``, with Horovod's TF-1 API.

::

    import tinyflow as tf
    import tinyflow.distributed as hvd
    hvd.init()                                  # torchrun's RANK, WORLD_SIZE, MASTER_ADDR...
    opt = hvd.DistributedOptimizer(tf.train.AdamOptimizer(0.001 * hvd.size()))
    train_step = opt.minimize(loss)
    sess.run(hvd.broadcast_global_variables(0))  # every rank starts from rank 0's values

The engine is PyTorch's: one process group (gloo for CPU tensors, NCCL for CUDA ones), formed
from the environment ``torchrun`` sets.  Collectives are graph ops (:mod:`tinyflow.ops.collective`)
whose Lua bodies call the ``torch`` table's collective functions, which land here
(:func:`tensor_all_reduce_start` and the others below): the memory planner gives them their buffers and
the executor runs them in its order like any op.

:class:`DistributedOptimizer` averages the gradients across ranks before the wrapped optimizer
applies them.  Small gradients are fused into flat buckets (Horovod's tensor fusion, PyTorch
DDP's buckets), one ``_allreduce_start`` (asynchronous) and one ``_allreduce_wait`` per bucket;
the step's op lists the starts first, last layers first, so in the executor's order each
bucket's reduction starts right after its last gradient is computed and is waited for only by
the update ops, while earlier layers' gradients are still being computed.

Batch norm statistics stay local to each rank (as in Horovod): each rank normalises with its
own batch's mean and variance, and the moving averages are each rank's own.

Faults: every collective waits at most the ``timeout`` given to :func:`init`; a failure or a
timeout is a :class:`DistributedError` naming the collective, this rank and the ranks that
reported a failure (a rank whose collective fails says so through the rendezvous store).
Before a collective first runs, the ranks compare its kind, name, shape and dtype over a side
group, so ranks with different graphs or shapes get a clear error instead of gloo aborting.
"""
from __future__ import annotations

import contextlib
import datetime
import os
import time
from dataclasses import dataclass, field

from .frontend.api import assign, global_variables, group
from .frontend.train import Optimizer
from .nnvm.symbol import create_op

__all__ = ["DistributedError", "DistributedOptimizer", "allgather", "allreduce", "broadcast",
           "broadcast_global_variables", "broadcast_variables", "comm_stats", "init", "is_initialized", "local_rank",
           "rank", "shutdown", "size"]

_FAILED_KEY = "tinyflow/failed/"


class DistributedError(RuntimeError):
    """A collective (or forming the world) failed or timed out; the message names the
    collective, this rank and what the other ranks reported."""


@dataclass
class _World:
    """This process's place in the world: the process groups, the store, the pending work."""

    rank: int
    size: int
    local_rank: int
    timeout: float
    backend: str
    store: object
    check_group: object                    # gloo side group for signature checks
    pending: dict = field(default_factory=dict)   # flat buffer address -> (work, label, start)
    checked: set = field(default_factory=set)     # signatures all ranks agreed on
    stats: dict = field(default_factory=lambda: {
        "collectives": 0, "bytes": 0, "overlap_s": 0.0, "blocked_s": 0.0})


class _Context:
    """The process's world (torch.distributed's default group is process-wide too)."""

    world: _World | None = None


def init(backend: str | None = None, timeout: float = 60.0) -> None:
    """Join the world torchrun (or any launcher setting its variables) describes.

    Parameters
    ----------
    backend : str, optional
        torch.distributed's backend: default ``"gloo"``, or ``"cpu:gloo,cuda:nccl"`` when CUDA
        is available (each tensor's device picks one).
    timeout : float
        Seconds any collective, and forming the world, may wait for the other ranks before
        :class:`DistributedError`.

    Without ``RANK`` / ``WORLD_SIZE`` in the environment the world is this process alone
    (size 1), as Horovod run without a launcher.
    """
    import torch
    import torch.distributed as dist
    if _Context.world is not None:
        return
    rank, size = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
    local = int(os.environ.get("LOCAL_RANK", str(rank)))
    backend = backend or ("cpu:gloo,cuda:nccl" if torch.cuda.is_available() else "gloo")
    limit = datetime.timedelta(seconds=timeout)
    if torch.cuda.is_available() and "nccl" in backend:
        torch.cuda.set_device(local % torch.cuda.device_count())
    try:
        if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
            dist.init_process_group(backend, timeout=limit)
        else:
            dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1,
                                    timeout=limit)
        check_group = dist.new_group(backend="gloo", timeout=limit)
    except RuntimeError as err:  # DistStoreError, DistBackendError: the world did not form
        where = f"{os.environ.get('MASTER_ADDR', '?')}:{os.environ.get('MASTER_PORT', '?')}"
        raise DistributedError(
            f"init: rank {rank} of {size} could not form the world at {where} within "
            f"{timeout:g} s (is every rank started, with the same MASTER_ADDR, MASTER_PORT "
            f"and WORLD_SIZE?): {_first_line(err)}") from None
    store = dist.distributed_c10d._get_default_store()
    _Context.world = _World(rank, size, local, timeout, backend, store, check_group)


def shutdown() -> None:
    """Leave the world (destroys the process groups); :func:`init` may join again."""
    import torch.distributed as dist
    if _Context.world is not None:
        _Context.world = None
        dist.destroy_process_group()


def is_initialized() -> bool:
    """Whether :func:`init` has run (and :func:`shutdown` not since)."""
    return _Context.world is not None


def _world(what: str = "this call") -> _World:
    if _Context.world is None:
        raise DistributedError(f"{what} needs tinyflow.distributed.init() first")
    return _Context.world


def rank() -> int:
    """This process's rank in the world, 0 .. size() - 1."""
    return _world("rank()").rank


def size() -> int:
    """The number of processes in the world."""
    return _world("size()").size


def local_rank() -> int:
    """This process's rank on its machine (torchrun's ``LOCAL_RANK``): the GPU to use."""
    return _world("local_rank()").local_rank


def comm_stats(reset: bool = False) -> dict:
    """What the asynchronous all-reduces of this process did so far: ``collectives`` started,
    ``bytes`` reduced, ``overlap_s`` (seconds between each start and its wait: the window in
    which computation ran beside the reduction) and ``blocked_s`` (seconds spent inside the
    waits: communication not hidden).  ``reset`` zeroes them after reading."""
    world = _world("comm_stats()")
    stats = dict(world.stats)
    if reset:
        world.stats.update(collectives=0, bytes=0, overlap_s=0.0, blocked_s=0.0)
    return stats


def _first_line(err) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


# -- what the collective bodies' kernels call (tinyflow/lua_ops/collective/kernels.py) -----
def _failure(world: _World, kind: str, label: str, err, started: float) -> DistributedError:
    """The error for collective ``kind`` ``label`` failing on this rank after ``err``; it is
    also reported to the other ranks through the store."""
    waited = time.perf_counter() - started
    message = (f"{kind} '{label}' failed on rank {world.rank} of {world.size} after "
               f"{waited:.1f} s (timeout {world.timeout:g} s): {_first_line(err)}")
    with contextlib.suppress(RuntimeError):  # the store's host (rank 0) may have died
        world.store.set(f"{_FAILED_KEY}{world.rank}", message)
    reports, silent = [], []
    for peer in range(world.size):
        if peer == world.rank:
            continue
        try:
            key = f"{_FAILED_KEY}{peer}"
            reported = world.store.check([key]) and world.store.get(key).decode()
        except RuntimeError:
            reported = None
        (reports.append(f"rank {peer} reported: {reported}") if reported else silent.append(peer))
    if silent:
        reports.append(f"rank(s) {silent} reported no failure (died, or still waiting)")
    return DistributedError(message + "; " + "; ".join(reports))


def check_signature(kind: str, label: str, tensor) -> None:
    """Before collective ``kind`` ``label`` first runs: every rank must bring one of the same
    shape and dtype (else gloo aborts the process).  Compared once per signature, over the side
    group, so a rank that builds a new executor for other feed shapes is not held up."""
    import torch.distributed as dist
    world = _world(f"{kind} '{label}'")
    signature = (kind, label, tuple(tensor.shape), str(tensor.dtype).replace("torch.", ""))
    if signature in world.checked or world.size == 1:
        return
    gathered = [None] * world.size
    started = time.perf_counter()
    try:
        dist.all_gather_object(gathered, signature, group=world.check_group)
    except RuntimeError as err:
        raise _failure(world, kind, label, f"the ranks did not all set it up (another rank "
                       f"failed, or runs a different graph): {_first_line(err)}",
                       started) from None
    if any(other != signature for other in gathered):
        ranks = "; ".join(f"rank {r}: {s[0]} '{s[1]}' shape {s[2]} {s[3]}"
                          for r, s in enumerate(gathered))
        raise DistributedError(f"{kind} '{label}': the ranks disagree (different graphs or "
                               f"shapes on rank {world.rank} of {world.size}): {ranks}")
    world.checked.add(signature)


def _run(kind: str, label: str, call):
    """``call()`` (a blocking collective), its failure a :class:`DistributedError`."""
    world = _world(f"{kind} '{label}'")
    started = time.perf_counter()
    try:
        return call()
    except RuntimeError as err:
        raise _failure(world, kind, label, err, started) from None


def tensor_all_reduce(tensor, label: str) -> None:
    """Sum ``tensor`` over every rank, in place, waiting for it."""
    import torch.distributed as dist
    _run("allreduce", label, lambda: dist.all_reduce(tensor))


def tensor_all_reduce_start(flat, label: str) -> None:
    """Start summing ``flat`` over every rank without waiting; :func:`tensor_all_reduce_wait` on the
    same buffer waits.  Nothing may touch ``flat`` in between."""
    import torch.distributed as dist
    world = _world(f"allreduce '{label}'")
    work = _run("allreduce", label, lambda: dist.all_reduce(flat, async_op=True))
    world.pending[flat.data_ptr()] = (work, time.perf_counter())
    world.stats["collectives"] += 1
    world.stats["bytes"] += flat.numel() * flat.element_size()


def tensor_all_reduce_wait(flat, label: str) -> None:
    """Wait for the reduction :func:`tensor_all_reduce_start` started on ``flat``."""
    world = _world(f"allreduce '{label}'")
    entry = world.pending.pop(flat.data_ptr(), None)
    if entry is None:
        raise DistributedError(f"allreduce '{label}': waiting for a reduction that was not "
                               f"started on this buffer (rank {world.rank})")
    work, started = entry
    waiting = time.perf_counter()
    try:
        work.wait()
    except RuntimeError as err:
        raise _failure(world, "allreduce", label, err, started) from None
    world.stats["overlap_s"] += waiting - started
    world.stats["blocked_s"] += time.perf_counter() - waiting


def tensor_broadcast(tensor, root: int, label: str) -> None:
    """Overwrite ``tensor`` with rank ``root``'s, in place."""
    import torch.distributed as dist
    world = _world(f"broadcast '{label}'")
    if not 0 <= root < world.size:
        raise DistributedError(f"broadcast '{label}': root rank {root} is not in the world "
                               f"of {world.size}")
    _run("broadcast", label, lambda: dist.broadcast(tensor, int(root)))


def tensor_all_gather(res, tensor, label: str) -> None:
    """``res`` = every rank's ``tensor`` stacked along dim 0 in rank order."""
    import torch.distributed as dist
    world = _world(f"allgather '{label}'")
    _run("allgather", label, lambda: dist.all_gather(list(res.chunk(world.size)), tensor))


# -- the graph side: collectives as ops (tinyflow/ops/collective.py), the optimizer ----------
def _label(what: str, tensor) -> str:
    """How errors and the rank-agreement check name a collective: the same on every rank that
    builds the same graph."""
    return f"{what} of {tensor.name}"


def allreduce(tensor, average: bool = True, name: str | None = None):
    """``tensor`` summed over every rank (averaged with ``average``), as an op
    (``_allreduce``, in place on its buffer).  Its gradient is the all-reduce of the incoming
    gradient (averaged likewise), as Horovod's."""
    return create_op("_allreduce", tensor, average=bool(average),
                     label=_label(name or "allreduce", tensor), name=name or "HorovodAllreduce")


def allgather(tensor, name: str | None = None):
    """Every rank's ``tensor`` concatenated along dim 0 in rank order (each rank must bring the
    same shape).  Its gradient is this rank's rows of the all-reduced (summed) gradient."""
    world = _world("allgather")
    return create_op("_allgather", tensor, size=world.size, rank=world.rank,
                     label=_label(name or "allgather", tensor), name=name or "HorovodAllgather")


def broadcast(tensor, root_rank: int, name: str | None = None):
    """Rank ``root_rank``'s ``tensor`` on every rank.  Its gradient is the gradients of every
    rank summed at the root, zero elsewhere, as Horovod's."""
    world = _world("broadcast")
    if not 0 <= int(root_rank) < world.size:
        raise ValueError(f"broadcast: root rank {root_rank} is not in the world of "
                         f"{world.size} (ranks 0 .. {world.size - 1})")
    return create_op("_broadcast", tensor, root=int(root_rank), rank=world.rank,
                     label=_label(name or "broadcast", tensor), name=name or "HorovodBroadcast")


def broadcast_variables(variables, root_rank: int):
    """An op setting each of ``variables`` to rank ``root_rank``'s value (one broadcast each).

    Returns
    -------
    An operation (``sess.run`` gives None).
    """
    return group(*[assign(var, broadcast(var, root_rank, name=f"broadcast_{var.op.name}"))
                   for var in variables], name="broadcast_variables")


def broadcast_global_variables(root_rank: int):
    """An op setting every global variable (weights, optimizer slots: build it after
    ``minimize``) to rank ``root_rank``'s value; run it once after initialising.  Variables
    shaped by inference hold a value only after a first run infers their shape: run the
    forward pass once first, or broadcast :func:`broadcast_variables` of the trainable ones.

    Returns
    -------
    An operation (``sess.run`` gives None).
    """
    return broadcast_variables(global_variables(), root_rank)


def _bucket_of(grad, var, bucket_bytes: int):
    """``(key, bytes)``: gradients sharing a key may share a bucket; bytes are None where the
    shape is not known before the first run (a weight shaped by inference): its own bucket."""
    shape = grad.get_shape()
    dtype = var.node.attrs.get("dtype", "float32")
    if not shape.is_fully_defined():
        return None, None
    count = 1
    for dim in shape.as_list():
        count *= dim
    nbytes = count * (8 if "64" in dtype else 2 if "16" in dtype else 4)
    return (dtype if nbytes < bucket_bytes else None), nbytes


def make_buckets(pairs, bucket_bytes: int) -> list[list[int]]:
    """Indices of ``pairs`` ((gradient, variable), gradients not None) grouped into buckets,
    last variables first (their gradients are computed first): consecutive gradients of one
    dtype fill a bucket up to ``bucket_bytes``; a larger one, or one of unknown size, is
    reduced alone (in place, no copy)."""
    buckets, current, current_key, filled = [], [], None, 0
    for index in reversed(range(len(pairs))):
        key, nbytes = _bucket_of(*pairs[index], bucket_bytes)
        if current and (key is None or key != current_key or filled + nbytes > bucket_bytes):
            buckets.append(current)
            current, filled = [], 0
        current.append(index)
        current_key, filled = key, filled + (nbytes or 0)
        if key is None:
            buckets.append(current)
            current, filled = [], 0
    if current:
        buckets.append(current)
    return buckets


class DistributedOptimizer(Optimizer):
    """Wraps an optimizer so that gradients are averaged over every rank before it applies them
    (Horovod's ``hvd.DistributedOptimizer``).

    Parameters
    ----------
    optimizer : tinyflow.train.Optimizer
        Applies the averaged gradients (scale its learning rate with ``size()`` as Horovod
        advises: the global batch is ``size()`` times each rank's).
    name : str, optional
        Names the step's op (default ``"Distributed" + the optimizer's name``).
    bucket_bytes : int
        Gradients smaller than this are fused into flat buckets of up to this many bytes, one
        all-reduce each; larger ones are reduced alone, in place.
    average : bool
        False sums the gradients instead.

    ``compute_gradients`` gives the reduced gradients (one ``_allreduce_wait`` output each);
    ``apply_gradients`` returns an op that starts every bucket's reduction, last layers first,
    then runs the wrapped optimizer's updates, which wait for them.
    """

    def __init__(self, optimizer, name: str | None = None, bucket_bytes: int = 1 << 20,
                 average: bool = True):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"DistributedOptimizer wraps a tf.train optimizer, got "
                            f"{type(optimizer).__name__}")
        self.optimizer, self.bucket_bytes, self.average = optimizer, int(bucket_bytes), average
        self._name = name or f"Distributed{optimizer._name}"
        self._starts: dict = {}  # reduced gradient's node -> (bucket number, start op)

    def compute_gradients(self, loss, var_list=None) -> list:
        """``[(averaged gradient, variable), ...]``; None where ``loss`` does not depend on
        the variable (every rank builds the same graph, so the same ones are None)."""
        _world("DistributedOptimizer")
        pairs = self.optimizer.compute_gradients(loss, var_list)
        present = [i for i, (grad, _) in enumerate(pairs) if grad is not None]
        reduced = {}
        for number, bucket in enumerate(make_buckets([pairs[i] for i in present],
                                                     self.bucket_bytes)):
            grads = [pairs[present[i]][0] for i in bucket]
            label = (f"bucket {number} of {self._name}: gradients of "
                     + ", ".join(pairs[present[i]][1].op.name for i in bucket))
            start = create_op("_allreduce_start", *grads, num_args=len(grads), label=label,
                              name=f"{self._name}_bucket{number}_start")
            wait = create_op("_allreduce_wait", start, *grads, num_args=len(grads),
                             average=self.average, label=label,
                             name=f"{self._name}_bucket{number}_wait")
            for out, i in enumerate(bucket):
                reduced[present[i]] = wait[out] if len(grads) > 1 else wait
                self._starts[reduced[present[i]].outputs[0].node] = (number, start)
        return [(reduced.get(i), var) for i, (_, var) in enumerate(pairs)]

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The wrapped optimizer's step, after the reductions of ``grads_and_vars``' buckets
        have started (listed first, in bucket order, so the executor's order starts each one
        as soon as its gradients exist)."""
        grads_and_vars = list(grads_and_vars)
        step = self.optimizer.apply_gradients(grads_and_vars, global_step=global_step)
        starts = dict(self._starts[grad.outputs[0].node] for grad, _ in grads_and_vars
                      if grad is not None and grad.outputs[0].node in self._starts)
        return group(*[starts[number] for number in sorted(starts)], step,
                     name=name or self._name)
