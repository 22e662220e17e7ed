"""How the CPU kernels' thread pools wait, decided before torch loads them (importing this
module does not import torch), and numpy's BLAS kept to the calling thread.

OpenMP threads that spin at a barrier wait for a team member the scheduler has not run: with
one other busy process on a 2-core machine, torch's default (libgomp spins ~300,000 times, some
milliseconds on this EPYC, after each parallel region) made LeNet's step 50x slower, the
softmax step 200x (docs/performance.md).  Sleeping at once costs a wake-up per region instead.
"""
from __future__ import annotations

import ctypes
import functools
import os
import sys

import numpy  # noqa: F401 - loads its BLAS library, whose path _openblas_local reads

__all__ = ["WAIT_POLICY_VARIABLES", "numpy_blas_single", "prepare_openmp"]

# a user's choice of how OpenMP threads wait (libgomp's, Intel's): TinyFlow then sets nothing
WAIT_POLICY_VARIABLES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")


def prepare_openmp(environ=os.environ, modules=sys.modules) -> str | None:
    """Before torch is imported, make its OpenMP threads sleep when idle
    (``OMP_WAIT_POLICY=PASSIVE``), unless the user set a waiting policy; the runtime reads the
    variable once, when torch loads it, so once torch is imported nothing is set.

    Returns
    -------
    str or None
        The policy set, or None when nothing was.
    """
    if "torch" in modules or any(name in environ for name in WAIT_POLICY_VARIABLES):
        return None
    environ["OMP_WAIT_POLICY"] = "PASSIVE"
    return "PASSIVE"


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
