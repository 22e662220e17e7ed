"""Scratch tensors: buffers op bodies allocate in their setup, beside the memory plan.

The executor binding closures opens a :func:`scratch_scope` and reports the bytes of what was
allocated inside it as the plan's workspace; the torch table and the family kernels register
each buffer they make with :func:`scratch`.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import ClassVar

__all__ = ["scratch", "scratch_scope"]


class _Scratch:
    """Open records of the scratch tensors set up (one list per open scope)."""

    records: ClassVar[list[list]] = []


@contextmanager
def scratch_scope():
    """Collect, in the list it yields, every scratch tensor set up inside the ``with``."""
    record: list = []
    _Scratch.records.append(record)
    try:
        yield record
    finally:  # by identity: nested scopes (a loop's body) hold equal lists
        records = _Scratch.records
        del records[next(i for i, r in enumerate(records) if r is record)]


def scratch(tensor):
    """``tensor``, recorded in every open scope."""
    for record in _Scratch.records:
        record.append(tensor)
    return tensor
