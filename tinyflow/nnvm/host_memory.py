"""The host memory a process can take now: what the allocation check compares against on the
CPU (:func:`tinyflow.executor.memory.available_bytes`), and what an op computed in Python
checks before it builds a result of its own (``index_to_string``'s strings)."""
from __future__ import annotations

import os

__all__ = ["MAX_BYTES", "host_available_bytes"]

MAX_BYTES = 2 ** 63 - 1  # torch sizes and byte counts are int64


def host_available_bytes() -> tuple[int, str]:
    """``(bytes, source)``: ``MemAvailable`` in /proc/meminfo, else the free physical pages
    from ``os.sysconf``."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024, "MemAvailable in /proc/meminfo"
    except (OSError, ValueError, IndexError):
        pass
    try:
        pages = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return MAX_BYTES, "unknown (no /proc/meminfo or sysconf)"
    return pages, "free pages per os.sysconf"
