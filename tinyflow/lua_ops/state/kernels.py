"""The Python kernels of the variable-state bodies (tinyflow/ops/state.py; their Lua ones are
in kernels.lua): the scatter ops' indices checked on a GPU, as gather's."""
from __future__ import annotations

from ..array.kernels import gpu_checked

__all__ = ["gpu_checked"]
