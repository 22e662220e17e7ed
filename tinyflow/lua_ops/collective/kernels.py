"""Kernels of the collective bodies (tinyflow/ops/collective.py): ``torch.distributed`` through
:mod:`.world`, after ``tinyflow.distributed.init()``.  ``label`` names the
collective in errors; a failure or a timeout is a ``DistributedError`` naming it and the ranks.
"""
from __future__ import annotations

from ..runtime import lua_table
from ..torch_table import same_memory
from . import world

__all__ = ["all_gather", "all_reduce", "all_reduce_start", "all_reduce_wait", "broadcast",
           "bucket_views", "collective_check", "world_size"]


def collective_check(kind, label, x, parts=None):
    """Every rank brings kind/label with x's shape and dtype, and the shapes of a bucket's
    parts (setup; once per signature): its fingerprint, which each step passes to the
    collective below to check again (world.agree)."""
    parts = list(parts.values()) if parts is not None else ()
    return world.check_signature(str(kind), str(label), x, parts)


def all_reduce(res, x, average, label, fingerprint):
    """res = sum of x over the ranks (/ their number with average); res may be x itself."""
    world.agree(fingerprint)
    if not same_memory(res, x):
        res.copy_(x)
    world.tensor_all_reduce(res, str(label))
    if average:
        res.div_(world.size())


def all_reduce_start(flat, label, fingerprint):
    """Start summing flat over the ranks, not waiting."""
    world.agree(fingerprint)
    world.tensor_all_reduce_start(flat, str(label))


def all_reduce_wait(flat, label):
    """Wait for flat's reduction (started above)."""
    world.tensor_all_reduce_wait(flat, str(label))


def bucket_views(flat, likes):
    """Views of flat, one per tensor of likes (its shape), packed in order (setup only)."""
    views, offset, flat_1d = [], 0, flat.view(-1)
    for like in likes.values():
        views.append(flat_1d[offset:offset + like.numel()].view(like.shape))
        offset += like.numel()
    if offset != flat.numel():
        raise ValueError(f"the bucket holds {flat.numel()} elements, its tensors {offset}")
    return lua_table(views)


def world_size():
    """The number of ranks."""
    return world.size()


def broadcast(res, x, root, label, fingerprint):
    """res = x of rank root; res may be x itself."""
    world.agree(fingerprint)
    if not same_memory(res, x):
        res.copy_(x)
    world.tensor_broadcast(res, int(root), str(label))


def all_gather(res, x, label, fingerprint):
    """res = every rank's x along dim 1, in rank order."""
    world.agree(fingerprint)
    world.tensor_all_gather(res, x.contiguous(), str(label))
