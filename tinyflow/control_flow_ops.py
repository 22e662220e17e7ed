"""TF-1 control flow and state ops beyond :mod:`tinyflow.api` (cond, Print, py_func, scatter_*)."""
from __future__ import annotations

__all__: list[str] = []
