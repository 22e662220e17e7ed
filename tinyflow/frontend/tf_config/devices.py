"""The devices ``tf.config`` lists: the CPU and each CUDA device torch sees, named as
TensorFlow names them (``/physical_device:GPU:0``, ``/device:GPU:0``)."""
from __future__ import annotations

from typing import NamedTuple

__all__ = ["LogicalDevice", "PhysicalDevice", "list_logical_devices", "list_physical_devices"]


class PhysicalDevice(NamedTuple):
    """A device of the machine (TensorFlow's ``tf.config.PhysicalDevice``)."""

    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    """A device ops can be placed on (TensorFlow's ``tf.config.LogicalDevice``)."""

    name: str
    device_type: str


def _device_types() -> list[str]:
    """``["CPU", "GPU", "GPU"...]``: the CPU, then one entry per CUDA device torch sees."""
    import torch  # deferred: listing devices is the first thing that needs torch
    return ["CPU"] + ["GPU"] * (torch.cuda.device_count() if torch.cuda.is_available() else 0)


def _devices(kind, prefix: str, device_type) -> list:
    numbers: dict[str, int] = {}
    found = []
    for each in _device_types():
        numbers[each] = numbers.get(each, -1) + 1
        if device_type is None or device_type == each:
            found.append(kind(f"{prefix}{each}:{numbers[each]}", each))
    return found


def list_physical_devices(device_type=None) -> list[PhysicalDevice]:
    """The machine's devices TinyFlow runs on, as TensorFlow lists them.

    Parameters
    ----------
    device_type : str, optional
        ``"CPU"`` or ``"GPU"`` (compared as given, as TensorFlow does: ``"cpu"`` lists none).

    Returns
    -------
    list of PhysicalDevice
        ``PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')`` and one
        ``/physical_device:GPU:<i>`` per CUDA device torch sees.
    """
    return _devices(PhysicalDevice, "/physical_device:", device_type)


def list_logical_devices(device_type=None) -> list[LogicalDevice]:
    """The devices ops can be placed on: ``/device:CPU:0`` and ``/device:GPU:<i>`` per CUDA
    device (one logical device per physical one, as TensorFlow without virtual devices)."""
    return _devices(LogicalDevice, "/device:", device_type)
