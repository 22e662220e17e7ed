"""Kernels of the fused recurrent ops' bodies (tinyflow/ops/rnn.py): matmul's GEMM, chosen per
shapes by timing (oneDNN's is 2-3x faster than MKL's on this CPU for an LSTM step's
[128, 128] @ [128, 512])."""
from __future__ import annotations

from ..matrix.kernels import mm_function

__all__ = ["mm_function"]
