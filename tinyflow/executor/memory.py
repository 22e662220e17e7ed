"""What a plan asks of the device, checked before anything is allocated.

An executor lists the buffers it is about to allocate (planned storages, feed buffers, tensors
of variables seen first) with the node each one serves; :func:`check_fits` compares each buffer
and their sum with the memory the device can give now and raises
:class:`ResourceExhaustedError` naming the op, node, shape and bytes, where torch's allocator
would fail with a message naming none of them (or the kernel's OOM killer would end the
process).  :func:`check_shape_sizes` refuses shapes no tensor can have (more than 2**63 bytes).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import torch

from ..nnvm import host_memory
from ..nnvm.errors import ResourceExhaustedError, ShapeError
from ..nnvm.host_memory import MAX_BYTES as _MAX_BYTES
from ..nnvm.host_memory import format_bytes
from ..nnvm.passes.infer import DTYPE_SIZE

__all__ = ["Buffer", "ResourceExhaustedError", "available_bytes", "check_fits",
           "check_shape_sizes", "format_bytes"]


class Buffer(NamedTuple):
    """One allocation an executor is about to make: ``nbytes`` for ``node``'s ``shape``
    (its largest entry, for a storage shared by several)."""

    nbytes: int
    node: object
    shape: tuple
    dtype: str
    what: str  # "output", "feed buffer", "variable"


def available_bytes(device: torch.device) -> tuple[int, str]:
    """``(bytes, source)``: the memory ``device`` can give now, and where the figure comes
    from (CUDA: free bytes from ``torch.cuda.mem_get_info``; CPU: ``MemAvailable`` in
    /proc/meminfo, else the free physical pages from ``os.sysconf``: the host's one figure,
    :func:`tinyflow.nnvm.host_memory.host_available_bytes`, read through its module so that
    a test patching it reaches this check too)."""
    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        return free, "free per torch.cuda.mem_get_info"
    return host_memory.host_available_bytes()


def _describe(buffer: Buffer) -> str:
    return (f"{buffer.node.describe()} needs {format_bytes(buffer.nbytes)} for its "
            f"{buffer.what} of shape {tuple(buffer.shape)} {buffer.dtype}".rstrip())


def check_fits(buffers: list[Buffer], device: torch.device,
               outcome: str = "nothing was allocated and no op ran") -> None:
    """Raise :class:`ResourceExhaustedError` when one of ``buffers``, or all together, need
    more than ``device`` can give now (:func:`available_bytes`); ``outcome`` ends its text."""
    if not buffers:
        return
    total = sum(b.nbytes for b in buffers)
    available, source = available_bytes(device)
    if total <= available:
        return
    largest = max(buffers, key=lambda b: b.nbytes)
    where = f"the {device.type.upper()} has {format_bytes(available)} available ({source})"
    if largest.nbytes > available:
        message = f"{_describe(largest)}, more than {where}"
    else:
        message = (f"this run needs {format_bytes(total)} in {len(buffers)} buffers, more "
                   f"than {where}; the largest: {_describe(largest)}")
    raise ResourceExhaustedError(f"{message}; {outcome}", largest.node)


def check_shape_sizes(indexed, shapes, dtypes) -> None:
    """``ShapeError`` naming the op, node and shape of an entry whose shape has a negative
    dimension or more bytes than an int64 can count (no tensor can have it)."""
    for nid, node in enumerate(indexed.nodes):
        first = indexed.entry_rptr[nid]
        for eid in range(first, first + node.num_outputs()):
            shape = shapes[eid]
            if shape is None:
                continue
            if any(d < 0 for d in shape):
                raise ShapeError(f"{node.describe()}: shape {tuple(shape)} has a negative "
                                 f"dimension")
            nbytes = math.prod(shape) * DTYPE_SIZE.get(dtypes[eid], 1)
            if nbytes > _MAX_BYTES:
                raise ShapeError(f"{node.describe()}: shape {tuple(shape)} {dtypes[eid]} is "
                                 f"{nbytes} bytes, more than any tensor can hold (2**63 - 1)")
