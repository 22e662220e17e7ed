"""``tf.config.experimental``: the device listings (``tf.config``'s) and memory growth.

TinyFlow plans a step's memory statically (every buffer's size is known when a session binds
the graph, and checked against the device's free memory before anything runs), and PyTorch's
CUDA allocator grows as it needs to: ``set_memory_growth`` is accepted for a GPU and recorded,
and ``get_memory_growth`` reports what was set; neither changes how memory is taken.  As in
TensorFlow, memory growth is for GPUs only.
"""
from __future__ import annotations

from ..unsupported import unsupported
from .devices import list_logical_devices, list_physical_devices

__all__ = ["get_memory_growth", "list_logical_devices", "list_physical_devices",
           "set_memory_growth"]


class _MemoryGrowth:
    """The process's memory-growth settings, GPU -> bool (TensorFlow's context keeps them)."""

    by_device: dict = {}  # noqa: RUF012 - the process's one record, as TensorFlow's context


def _known(device):
    if device not in list_physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")
    return device


def set_memory_growth(device, enable: bool) -> None:
    """Record that ``device`` (a GPU of :func:`list_physical_devices`) should grow its memory;
    ValueError for a device not listed or not a GPU, as TensorFlow's."""
    if _known(device).device_type != "GPU":
        raise ValueError("Cannot set memory growth on non-GPU devices")
    _MemoryGrowth.by_device[device] = bool(enable)


def get_memory_growth(device) -> bool:
    """Whether memory growth was set for the GPU ``device`` (False until set).  ValueError for
    a device not listed; KeyError for the CPU, as TensorFlow's (its record holds GPUs only)."""
    if _known(device).device_type != "GPU":
        raise KeyError(device)
    return _MemoryGrowth.by_device.get(device, False)


def __getattr__(name):
    raise unsupported("tf.config.experimental.", "tinyflow.config.experimental", name,
                      {"tf.config.experimental.": __all__})
