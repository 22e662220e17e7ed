"""Kernels of the loop bodies (tinyflow/ops/loop.py): reading a loop's condition, keeping
the loop variables of an iteration for the backward pass, and copying a loop variable whose
shape changes."""
from __future__ import annotations

__all__ = ["keep", "resize_copy", "truth"]


def truth(x) -> bool:
    """The value of a bool scalar tensor, as a Lua boolean (one host sync on a GPU)."""
    return bool(x)


def keep(kept, x):
    """``kept`` (a tensor of x's shape and dtype, or nil) holding a copy of ``x``: reused when
    it fits, else a new tensor (the loop's stack for the backward grows to its longest run)."""
    if kept is None or kept.shape != x.shape or kept.dtype != x.dtype:
        return x.clone()
    return kept.copy_(x)


def resize_copy(res, x) -> None:
    """res = x, res resized to x's shape first: a tensor of its own (a loop variable whose
    shape changes, a run-time-shaped output), whose shape the body sets."""
    if res.shape != x.shape:  # new storage (numpy() of it made the old one fixed in size)
        res.set_(x.new_empty(x.shape))
    res.copy_(x)
