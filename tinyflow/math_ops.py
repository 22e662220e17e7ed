"""TF-1 math beyond the elementwise and reduction ops of :mod:`tinyflow.api`."""
from __future__ import annotations

__all__: list[str] = []
