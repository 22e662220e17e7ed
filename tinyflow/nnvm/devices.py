"""``tf.Graph.device``: TensorFlow's device scopes, checked and kept as no-ops.

TinyFlow runs every op of a session on the session's one device (``Session("gpu")`` or the
CPU), as TensorFlow does with ``allow_soft_placement``; a program's placements are accepted, and
one TensorFlow could not parse is its ValueError.
"""
from __future__ import annotations

import contextlib
import re

__all__ = ["DeviceScopes"]

_DEVICE = re.compile(r"(/job:[\w-]+|/replica:\d+|/task:\d+|/device:[A-Za-z_]+:(\d+|\*)"
                     r"|/(cpu|gpu|CPU|GPU):(\d+|\*))*")
_DEVICE_TYPE = re.compile(r"/(device:[A-Za-z_]+|cpu|gpu|CPU|GPU):")


class DeviceScopes:
    """The graph's ``device`` method (a mixin of :class:`~tinyflow.nnvm.symbol.GraphContext`)."""

    @contextlib.contextmanager
    def device(self, device_name_or_function):
        """``with graph.device("/gpu:0"):`` (what ``tf.device`` uses): a device string,
        a function of the op or None; accepted, with no effect on where ops run."""
        spec = device_name_or_function
        if not (spec is None or callable(spec) or isinstance(spec, str) and
                _DEVICE.fullmatch(spec)):
            raise ValueError(f"Graph.device: cannot parse device specification {spec!r}")
        if isinstance(spec, str) and len(_DEVICE_TYPE.findall(spec)) > 1:
            raise ValueError(f"Multiple device types are not allowed while parsing the device "
                             f"spec: {spec}.")
        yield
