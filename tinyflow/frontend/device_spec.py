"""``tf.DeviceSpec``: TensorFlow 1.15's (possibly partial) device specification — job,
replica, task, device type and index — parsed from and written as TensorFlow's strings
(``/job:ps/replica:0/task:1/device:GPU:2``), merged as TensorFlow merges nested device scopes.
TF-1's is mutable (its fields can be set; ``merge_from`` and ``parse_from_string`` change it).
Every op of a TinyFlow session still runs on the session's one device (``tf.device``)."""
from __future__ import annotations

__all__ = ["DeviceSpec"]

_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})  # TensorFlow's known types
_FIELDS = ("job", "replica", "task", "device_type", "device_index")


def _int_or_none(value):
    return None if value is None else int(value)


def _device_type(value):
    return value.upper() if value in ("cpu", "gpu") else None if value is None else str(value)


def _components(spec) -> tuple:
    """``(job, replica, task, device_type, device_index)`` of a device string, as TensorFlow's
    ``DeviceSpec._string_to_components``; ValueError naming a part it cannot read."""
    found = dict.fromkeys(_FIELDS)
    for part in (spec or "").split("/"):
        words = part.split(":")
        if len(words) == 2 and words[0] in ("job", "replica", "task"):
            found[words[0]] = words[1]
        elif len(words) in (1, 2) and words[0].upper() in _DEVICE_TYPES or (
                len(words) == 3 and words[0] == "device"):
            if found["device_type"] is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the "
                                 f"device spec: {spec}.")
            kind, index = (words[0].upper(), words[1:]) if len(words) < 3 else (
                words[1], words[2:])
            found["device_type"] = kind
            if index and index[0] != "*":
                found["device_index"] = int(index[0])
        elif words[0]:
            raise ValueError(f"Unknown attribute '{words[0]}' is encountered while parsing "
                             f"the device spec: '{spec}'.")
    return tuple(found.values())


class DeviceSpec:
    """A (possibly partial) device specification, TensorFlow 1.15's ``tf.DeviceSpec``.

    Parameters
    ----------
    job : str, optional
    replica, task : int, optional
    device_type : str, optional
        ``"CPU"``, ``"GPU"`` (``"cpu"`` and ``"gpu"`` are upper-cased, others kept as given).
    device_index : int, optional
        None stands for any index (``/device:GPU:*``).
    """

    __slots__ = ("_device_index", "_device_type", "_job", "_replica", "_task")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job, self.replica, self.task = job, replica, task
        self.device_type, self.device_index = device_type, device_index

    job = property(lambda self: self._job,
                   lambda self, value: setattr(self, "_job", None if value is None else
                                               str(value)))
    replica = property(lambda self: self._replica,
                       lambda self, value: setattr(self, "_replica", _int_or_none(value)))
    task = property(lambda self: self._task,
                    lambda self, value: setattr(self, "_task", _int_or_none(value)))
    device_type = property(lambda self: self._device_type,
                           lambda self, value: setattr(self, "_device_type", _device_type(value)))
    device_index = property(lambda self: self._device_index,
                            lambda self, value: setattr(self, "_device_index",
                                                        _int_or_none(value)))

    @classmethod
    def from_string(cls, spec) -> DeviceSpec:
        """The spec a string such as ``/job:ps/task:1/device:GPU:0`` (or ``/gpu:0``) names."""
        return cls(*_components(spec))

    def parse_from_string(self, spec) -> DeviceSpec:
        """Set every field from ``spec`` (those it leaves out become None); returns self."""
        (self.job, self.replica, self.task, self.device_type,
         self.device_index) = _components(spec)
        return self

    def _merged(self, dev) -> tuple:
        return tuple(getattr(dev, field) if getattr(dev, field) is not None else
                     getattr(self, field) for field in _FIELDS)

    def merge_from(self, dev) -> None:
        """Take every field ``dev`` sets (``dev`` wins, as an inner device scope)."""
        (self.job, self.replica, self.task, self.device_type,
         self.device_index) = self._merged(dev)

    def make_merged_spec(self, dev) -> DeviceSpec:
        """A new spec: this one with every field ``dev`` sets taken from ``dev``."""
        return type(self)(*self._merged(dev))

    def replace(self, **fields) -> DeviceSpec:
        """A new spec with the fields given replaced."""
        return type(self)(**{**{field: getattr(self, field) for field in _FIELDS}, **fields})

    def to_string(self) -> str:
        """``/job:<name>/replica:<id>/task:<id>/device:<type>:<id>``, the parts set."""
        parts = [f"/{field}:{getattr(self, field)}" for field in ("job", "replica", "task")
                 if getattr(self, field) is not None]
        if self.device_type is not None:
            index = "*" if self.device_index is None else self.device_index
            parts.append(f"/device:{self.device_type}:{index}")
        return "".join(parts)

    def __eq__(self, other):
        return isinstance(other, type(self)) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())

    def __repr__(self):
        fields = ", ".join(f"{field}={getattr(self, field)}" for field in _FIELDS)
        return f"<DeviceSpec({fields})>"
