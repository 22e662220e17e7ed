"""The host memory a process can take now: the one figure every check on the host reads (the
executor's on the CPU, ``index_to_string``'s strings, the readers of untrusted files), each
through this module (``host_memory.host_available_bytes()``, never a name imported from it), so
that a test patching :func:`host_available_bytes` here sets the limit for all of them."""
from __future__ import annotations

import os

from .errors import ResourceExhaustedError

__all__ = ["MAX_BYTES", "check_node_fits", "format_bytes", "host_available_bytes"]

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


def check_node_fits(node, needed: int, what: str) -> None:
    """TF's ResourceExhaustedError naming ``node`` when ``needed`` bytes (``what`` they are
    for: "for its strings", "to hash 3 strings") are more than the host has free: the check
    of an op computed in Python (strings, tables, files), beside the executor's buffers."""
    available, source = host_available_bytes()
    if needed > available:
        raise ResourceExhaustedError(f"{node.describe()} needs about {needed} bytes {what}, "
                                     f"more than the {available} available ({source})", node)


def format_bytes(nbytes: int) -> str:
    """``4.00 TB (4000000000000 bytes)``: readable and exact."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.2f} {unit} ({nbytes} bytes)"
    return f"{nbytes} bytes"
