"""Kernels of matmul's body (tinyflow/ops/matrix.py): the GEMM chosen per shapes; einsum;
orthogonalize's QR; the band and diagonals of the last two axes."""
from __future__ import annotations

import functools

import numpy as np
import torch

from ..cpu import ONEDNN_POINTWISE, numpy_views, onednn, seconds
from ..threads import numpy_blas_single

__all__ = ["band_part", "blas_mm", "diag_part", "einsum", "matrix_diag", "mm_function",
           "orthogonalize", "set_diag"]


# CPU floats, few columns (784x10 weights): numpy's OpenBLAS is 1.4-2.5x faster than torch's
# MKL (100x784 @ 784x10: 23 us against 32; 784x100 @ 100x10: 18 against 38), on one thread
# (lua_ops/threads.py: OpenBLAS's own spinning threads made it 6x slower with a core busy).
def blas_mm(res, a, b):  # the numpy views share the planned buffers, which never move
    """Setup: a function doing res = a @ b in numpy on the calling thread, or nil."""
    arrays = numpy_views(a, b, res)
    if arrays is not None:
        return numpy_blas_single(functools.partial(np.matmul, arrays[0], arrays[1],
                                                   out=arrays[2]))
    return None


# Two CPU GEMMs, each fastest on some shapes (2 threads, ms): mnist_deep's 50x3136 @ 3136x1024
# MKL (torch.mm) 2.6-2.8, oneDNN's matmul 1.9-2.1.  Products of at least _TIMED_MACS
# multiply-adds are timed once per process and shapes (as cuDNN's benchmark mode), on random
# data of their shapes and strides.  (numpy's OpenBLAS, faster alone on some, is left out: its
# own threads spin after each call and took the cores from torch's, LeNet's step 1.8x slower.)
_TIMED_MACS = 1 << 22


def mm_function(res, a, b):
    """Setup: a function doing res = a @ b (2-D) with the fastest GEMM for these shapes."""
    if not onednn(res) or a.shape[0] * a.shape[1] * b.shape[1] < _TIMED_MACS:
        return functools.partial(torch.mm, a, b, out=res)
    choice = _gemm_choice(*((tuple(t.shape), t.stride()) for t in (res, a, b)),
                          torch.get_num_threads())
    return _gemms(res, a, b)[choice]


@functools.lru_cache(maxsize=256)
def _gemm_choice(res, a, b, threads) -> str:
    """The name of the faster GEMM for tensors of these ``(shape, strides)``, timed on random
    data (``threads``: torch's count when timed, part of the key)."""
    del threads
    timed = _gemms(*(torch.empty_strided(shape, stride).normal_() for shape, stride in (res, a, b)))
    names = list(timed)
    times = seconds([timed[name] for name in names])
    return names[times.index(min(times))]


def _gemms(res, a, b):
    """{name: function doing res = a @ b} of the GEMMs that can run on these tensors."""
    gemms = {"mkl": functools.partial(torch.mm, a, b, out=res)}
    if ONEDNN_POINTWISE:  # a fresh result, copied
        b_t = b.t()
        gemms["onednn"] = lambda: res.copy_(torch.ops.mkldnn._linear_pointwise(
            a, b_t, None, "none", [], ""))
    return gemms


def orthogonalize(res, a):
    """res = q * sign(diag(r)) for a = q r, the reduced QR (TF's Orthogonal initializer)."""
    q, r = torch.linalg.qr(a)
    res.copy_(q * torch.sign(torch.diagonal(r)))


def einsum(res, equation, *operands):
    """res = torch.einsum(equation, operands) (torch has no out=: a copy of its result)."""
    res.copy_(torch.einsum(equation, *operands))


def band_part(res, x, num_lower, num_upper):
    """res = x, zero off the band of each matrix: kept where i - j <= num_lower and j - i <=
    num_upper (a negative bound keeps that whole triangle)."""
    rows, cols = x.shape[-2], x.shape[-1]
    lower, upper = int(num_lower), int(num_upper)
    band = x.triu(-(rows if lower < 0 else lower))  # rows, cols: past every diagonal
    torch.tril(band, cols if upper < 0 else upper, out=res)


def matrix_diag(res, d):
    """res = matrices with the vectors d on their diagonals."""
    res.copy_(torch.diag_embed(d))


def diag_part(res, x):
    """res = the diagonals of x's matrices (last two axes)."""
    res.copy_(torch.diagonal(x, dim1=-2, dim2=-1))


def set_diag(res, x, d):
    """res = x with its matrices' diagonals set to d."""
    res.copy_(x)
    torch.diagonal(res, dim1=-2, dim2=-1).copy_(d)
