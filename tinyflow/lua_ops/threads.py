"""numpy's BLAS kept to the calling thread (importing this module does not import torch).

OpenBLAS's own threads spin ~0.1 s after each call, taking the cores torch's threads need; the
small products TinyFlow gives numpy gain nothing from them.  How torch's OpenMP threads wait is
left to libgomp's default (spin a while, then sleep): telling them to sleep at once
(``OMP_WAIT_POLICY=PASSIVE``) measured slower both quiet and with one busy process beside
(docs/performance.md), so it is the user's choice, not TinyFlow's.
"""
from __future__ import annotations

import ctypes
import functools

import numpy  # noqa: F401 - loads its BLAS library, whose path _openblas_local reads

__all__ = ["numpy_blas_single"]


@functools.cache
def _openblas_local():
    """numpy's OpenBLAS ``openblas_set_num_threads_local`` (OpenBLAS 0.3.27 on: the calling
    thread's count, returning the previous one), or None where it cannot be found."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    except OSError:
        return None
    for path in sorted(paths):
        function = getattr(ctypes.CDLL(path), "openblas_set_num_threads_local", None)
        if function is not None:
            function.argtypes, function.restype = [ctypes.c_int], ctypes.c_int
            return function
    return None


def numpy_blas_single(run):
    """``run`` (a numpy BLAS call) made to run on the calling thread alone, or None where
    numpy's BLAS cannot be told so.  OpenBLAS's own threads spin ~0.1 s after each call
    (its THREAD_TIMEOUT), taking the cores torch's threads need."""
    local = _openblas_local()
    if local is None:
        return None

    def single():
        previous = local(1)
        try:
            run()
        finally:
            local(previous)
    return single
