"""This process's place in a data-parallel world on ``torch.distributed``: the process group
(:func:`init`, ``tinyflow.distributed.init()`` for programs) and the collectives the collective
bodies run through it (:mod:`.kernels`), each bounded by the world's timeout.

A failure or a timeout is a :class:`DistributedError` naming the collective, this rank and what
the other ranks reported (a rank whose collective fails says so through the rendezvous store).
Before a collective first runs, the ranks compare its kind, name, shape and dtype over a side
group, so ranks with different graphs or shapes get a clear error instead of gloo aborting.
Once a collective has agreed on two signatures or more, every step checks the agreement again
(:func:`agree`: one max-reduce of two int64 over the side group), since a rank may then run an
executor cached for one while another runs one for another (shapes (4, 3) and (2, 6) hold the
same bytes: summed silently otherwise).  The ranks agree on signatures together, so they all
know alike whether a collective has several; one that has a single signature costs nothing.
"""
from __future__ import annotations

import contextlib
import datetime
import hashlib
import os
import time
from dataclasses import dataclass, field

__all__ = ["DistributedError", "agree", "check_signature", "comm_stats", "init", "is_initialized",
           "joined", "local_rank", "rank", "shutdown", "size", "tensor_all_gather",
           "tensor_all_reduce", "tensor_all_reduce_start", "tensor_all_reduce_wait",
           "tensor_broadcast"]

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
    signatures: dict = field(default_factory=dict)  # fingerprint -> signature, for errors
    variants: dict = field(default_factory=dict)    # (kind, label) -> how many signatures agreed
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


def joined(what: str = "this call") -> _World:
    """This process's world; DistributedError naming ``what`` before :func:`init`."""
    if _Context.world is None:
        raise DistributedError(f"{what} needs tinyflow.distributed.init() first")
    return _Context.world


def rank() -> int:
    """This process's rank in the world, 0 .. size() - 1."""
    return joined("rank()").rank


def size() -> int:
    """The number of processes in the world."""
    return joined("size()").size


def local_rank() -> int:
    """This process's rank on its machine (torchrun's ``LOCAL_RANK``): the GPU to use."""
    return joined("local_rank()").local_rank


def comm_stats(reset: bool = False) -> dict:
    """What the asynchronous all-reduces of this process did so far: ``collectives`` started,
    ``bytes`` reduced, ``overlap_s`` (seconds between each start and its wait: the window in
    which computation ran beside the reduction) and ``blocked_s`` (seconds spent inside the
    waits: communication not hidden).  ``reset`` zeroes them after reading."""
    world = joined("comm_stats()")
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


def check_signature(kind: str, label: str, tensor, parts=()) -> int:
    """Before collective ``kind`` ``label`` first runs: every rank must bring one of the same
    shape and dtype (and, for a bucket, the same ``parts``' shapes), else gloo aborts the
    process.  Compared once per signature, over the side group, so a rank that builds a new
    executor for other feed shapes is not held up.  Returns the signature's fingerprint, for
    :func:`agree` at every step."""
    world = joined(f"{kind} '{label}'")
    signature = (kind, label, tuple(tensor.shape), str(tensor.dtype).replace("torch.", ""),
                 tuple(tuple(p.shape) for p in parts))
    digest = hashlib.blake2b(repr(signature).encode(), digest_size=8).digest()
    fingerprint = int.from_bytes(digest, "little") >> 1  # an int64, as -fingerprint is
    world.signatures[fingerprint] = signature
    if signature not in world.checked and world.size > 1:
        _compare(world, signature, "the ranks did not all set it up")
        world.checked.add(signature)
        world.variants[signature[:2]] = world.variants.get(signature[:2], 0) + 1
    return fingerprint


def _compare(world: _World, signature: tuple, failing: str) -> None:
    """Gather every rank's ``signature`` over the side group; DistributedError naming each
    rank's when they differ."""
    import torch.distributed as dist
    kind, label = signature[:2]
    gathered = [None] * world.size
    started = time.perf_counter()
    try:
        dist.all_gather_object(gathered, signature, group=world.check_group)
    except RuntimeError as err:
        raise _failure(world, kind, label, f"{failing} (another rank failed, or runs a "
                       f"different graph): {_first_line(err)}", started) from None
    if any(other != signature for other in gathered):
        ranks = "; ".join(f"rank {r}: {s[0]} '{s[1]}' shape {s[2]} {s[3]}"
                          + (f" of parts {list(s[4])}" if s[4] else "")
                          for r, s in enumerate(gathered))
        raise DistributedError(f"{kind} '{label}': the ranks disagree (different graphs or "
                               f"shapes on rank {world.rank} of {world.size}): {ranks}")


def agree(fingerprint: int) -> None:
    """At every step, before the collective whose :func:`check_signature` gave
    ``fingerprint``: every rank must bring that one (checked where the collective has agreed on
    several signatures).  One max-reduce of ``[f, -f]`` over the
    side group (every rank sees the same result); where they differ, the ranks gather their
    signatures and each raises DistributedError naming the collective and every rank's."""
    import torch
    import torch.distributed as dist
    world = joined("a collective")
    kind, label = world.signatures[fingerprint][:2]
    if world.variants.get((kind, label), 0) < 2:  # one signature: every rank runs that one
        return
    pair = torch.tensor([fingerprint, -fingerprint], dtype=torch.int64)
    _run(kind, label, lambda: dist.all_reduce(pair, op=dist.ReduceOp.MAX,
                                              group=world.check_group))
    if pair[0].item() != -pair[1].item():
        _compare(world, world.signatures[fingerprint], "the ranks did not all run it")


def _run(kind: str, label: str, call):
    """``call()`` (a blocking collective), its failure a :class:`DistributedError`."""
    world = joined(f"{kind} '{label}'")
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
    world = joined(f"allreduce '{label}'")
    work = _run("allreduce", label, lambda: dist.all_reduce(flat, async_op=True))
    world.pending[flat.data_ptr()] = (work, time.perf_counter())
    world.stats["collectives"] += 1
    world.stats["bytes"] += flat.numel() * flat.element_size()


def tensor_all_reduce_wait(flat, label: str) -> None:
    """Wait for the reduction :func:`tensor_all_reduce_start` started on ``flat``."""
    world = joined(f"allreduce '{label}'")
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
    world = joined(f"broadcast '{label}'")
    if not 0 <= root < world.size:
        raise DistributedError(f"broadcast '{label}': root rank {root} is not in the world "
                               f"of {world.size}")
    _run("broadcast", label, lambda: dist.broadcast(tensor, int(root)))


def tensor_all_gather(res, tensor, label: str) -> None:
    """``res`` = every rank's ``tensor`` stacked along dim 0 in rank order."""
    import torch.distributed as dist
    world = joined(f"allgather '{label}'")
    _run("allgather", label, lambda: dist.all_gather(list(res.chunk(world.size)), tensor))


# -- the graph side: collectives as ops (tinyflow/ops/collective.py), the optimizer ----------
