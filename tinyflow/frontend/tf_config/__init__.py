"""``tf.config``: the devices TinyFlow can run on (``list_physical_devices``,
``list_logical_devices``), ``tf.config.threading`` (the thread counts of the sessions a program
makes) and ``tf.config.experimental`` (the same listings, and memory growth, which TinyFlow's
static memory plan does not need); any other ``tf.config.X`` is an AttributeError saying
TinyFlow does not support it."""
from __future__ import annotations

from ..unsupported import unsupported
from . import experimental, threading
from .devices import LogicalDevice, PhysicalDevice, list_logical_devices, list_physical_devices

__all__ = ["LogicalDevice", "PhysicalDevice", "experimental", "list_logical_devices",
           "list_physical_devices", "threading"]


def __getattr__(name):
    raise unsupported("tf.config.", "tinyflow.config", name, {
        "tf.config.": __all__, "tf.config.experimental.": experimental.__all__,
        "tf.config.threading.": threading.__all__})
