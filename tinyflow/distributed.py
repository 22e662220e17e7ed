"""Data-parallel training on ``torch.distributed``, with Horovod's TF-1 API.

::

    import tinyflow as tf
    import tinyflow.distributed as hvd
    hvd.init()                                  # torchrun's RANK, WORLD_SIZE, MASTER_ADDR...
    opt = hvd.DistributedOptimizer(tf.train.AdamOptimizer(0.001 * hvd.size()))
    train_step = opt.minimize(loss)
    sess.run(hvd.broadcast_global_variables(0))  # every rank starts from rank 0's values

The engine is PyTorch's: one process group (gloo for CPU tensors, NCCL for CUDA ones), formed
from the environment ``torchrun`` sets, held by the engine
(:mod:`tinyflow.lua_ops.collective.world`, re-exported here: ``init``, ``rank``, ``size``...).
Collectives are graph ops (:mod:`tinyflow.ops.collective`) whose built-in Lua bodies call their
family's kernels, which run them through that world: the memory planner gives them their buffers
and the executor runs them in its order like any op.

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

from .frontend.api import _tensor, assign, global_variables, group
from .frontend.train import Optimizer
from .lua_ops.collective.world import (
    DistributedError,
    comm_stats,
    init,
    is_initialized,
    joined,
    local_rank,
    rank,
    shutdown,
    size,
)
from .nnvm.symbol import Symbol, create_op

__all__ = ["DistributedError", "DistributedOptimizer", "allgather", "allreduce", "broadcast",
           "broadcast_global_variables", "broadcast_variables", "comm_stats", "init",
           "is_initialized", "local_rank", "rank", "shutdown", "size"]

def _label(what: str, tensor) -> str:
    """How errors and the rank-agreement check name a collective: the same on every rank that
    builds the same graph."""
    return f"{what} of {tensor.name}"


def allreduce(tensor, average: bool = True, name: str | None = None) -> Symbol:
    """``tensor`` summed over every rank (averaged with ``average``), as an op
    (``_allreduce``, in place on its buffer).  Its gradient is the all-reduce of the incoming
    gradient (averaged likewise), as Horovod's."""
    return create_op("_allreduce", tensor, average=bool(average),
                     label=_label(name or "allreduce", tensor), name=name or "HorovodAllreduce")


def allgather(tensor, name: str | None = None) -> Symbol:
    """Every rank's ``tensor`` concatenated along dim 0 in rank order (each rank must bring the
    same shape).  Its gradient is this rank's rows of the all-reduced (summed) gradient."""
    world = joined("allgather")
    return create_op("_allgather", tensor, size=world.size, rank=world.rank,
                     label=_label(name or "allgather", tensor), name=name or "HorovodAllgather")


def broadcast(tensor, root_rank: int, name: str | None = None) -> Symbol:
    """Rank ``root_rank``'s ``tensor`` on every rank.  Its gradient is the gradients of every
    rank summed at the root, zero elsewhere, as Horovod's."""
    world = joined("broadcast")
    if not 0 <= int(root_rank) < world.size:
        raise ValueError(f"broadcast: root rank {root_rank} is not in the world of "
                         f"{world.size} (ranks 0 .. {world.size - 1})")
    return create_op("_broadcast", tensor, root=int(root_rank), rank=world.rank,
                     label=_label(name or "broadcast", tensor), name=name or "HorovodBroadcast")


def broadcast_variables(variables, root_rank: int) -> Symbol:
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

    ``compute_gradients`` gives the reduced gradients (one ``_allreduce_wait`` output each; an
    IndexedSlices is reduced dense, as Horovod's ``sparse_as_dense=True``);
    ``apply_gradients`` returns an op that starts every bucket's reduction, last layers first,
    then runs the wrapped optimizer's updates, which wait for them.
    """

    def __init__(self, optimizer, name: str | None = None, bucket_bytes: int = 1 << 20,
                 average: bool = True) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"DistributedOptimizer wraps a tf.train optimizer, got "
                            f"{type(optimizer).__name__}")
        self.optimizer, self.bucket_bytes, self.average = optimizer, int(bucket_bytes), average
        self._name = name or f"Distributed{optimizer._name}"
        self._starts: dict = {}  # reduced gradient's node -> (bucket number, start op)

    def compute_gradients(self, loss, var_list=None, *args, **kwargs) -> list:
        """``[(averaged gradient, variable), ...]``; None where ``loss`` does not depend on
        the variable (every rank builds the same graph, so the same ones are None).  The other
        arguments go to the wrapped optimizer's ``compute_gradients``."""
        joined("DistributedOptimizer")
        # an IndexedSlices is reduced as its dense tensor (Horovod's sparse_as_dense=True)
        pairs = [(None if grad is None else _tensor(grad), var) for grad, var in
                 self.optimizer.compute_gradients(loss, var_list, *args, **kwargs)]
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

    def get_slot(self, var, name):
        """The wrapped optimizer's slot ``name`` of ``var`` (Horovod's)."""
        return self.optimizer.get_slot(var, name)

    def get_slot_names(self) -> list:
        return self.optimizer.get_slot_names()

    def variables(self) -> list:
        return self.optimizer.variables()

    def apply_gradients(self, grads_and_vars, global_step=None, name=None) -> Symbol:
        """The wrapped optimizer's step, after the reductions of ``grads_and_vars``' buckets
        have started (listed first, in bucket order, so the executor's order starts each one
        as soon as its gradients exist)."""
        grads_and_vars = list(grads_and_vars)
        step = self.optimizer.apply_gradients(grads_and_vars, global_step=global_step)
        starts = dict(self._starts[grad.outputs[0].node] for grad, _ in grads_and_vars
                      if grad is not None and grad.outputs[0].node in self._starts)
        return group(*[starts[number] for number in sorted(starts)], step,
                     name=name or self._name)
