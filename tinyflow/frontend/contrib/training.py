"""``tf.contrib.training.HParams`` (TensorFlow 1.15's ``contrib/training/python/training/
hparam.py``): a model's hyperparameters as attributes, each of a type fixed when it is added
(int, float, bool, str, or a list of one of them), set from code, a dict, a
``"name=value,..."`` string or JSON; a value of another type is a ValueError, as TF's (an int
may go where a float is, not the other way)."""
from __future__ import annotations

import json
import re

__all__ = ["HParams"]

_ASSIGNMENT = re.compile(r"\s*(\w+)\s*=\s*(\[[^\]]*\]|[^,]*)\s*(?:,|$)")


def _cast(name, kind, value):
    """``value`` as a ``kind`` hyperparameter (TF's _cast_to_type_if_compatible)."""
    if isinstance(value, str) and kind is not str or kind is str and not isinstance(value, str):
        raise ValueError(f"Could not cast hparam '{name}' of type '{kind}' from value {value!r}")
    if kind is bool and not isinstance(value, bool) or isinstance(value, bool) and kind is not bool:
        raise ValueError(f"Could not cast hparam '{name}' of type '{kind}' from value {value!r}")
    if kind is int and isinstance(value, float):
        raise ValueError(f"Could not cast hparam '{name}' of type '{kind}' from value {value!r}")
    return kind(value)


def _parsed(text: str, kind):
    """One value of ``kind`` from its text in a ``parse`` string."""
    text = text.strip()
    if kind is bool:
        if text.lower() in ("true", "1"):
            return True
        if text.lower() in ("false", "0"):
            return False
        raise ValueError(f"Could not parse {text!r} as a bool")
    return kind(text) if kind is not str else text


class HParams:
    """Hyperparameters as attributes: ``HParams(learning_rate=0.1, layers=[64, 32])``."""

    _RESERVED = ("add_hparam", "del_hparam", "get", "get_model_structure", "override_from_dict",
                 "parse", "parse_json", "set_hparam", "set_model_structure", "to_json", "values")

    def __init__(self, hparam_def=None, model_structure=None, **kwargs):
        if hparam_def is not None:
            raise ValueError("HParams(hparam_def=...) (an HParamDef protocol buffer) is not "
                             "supported by TinyFlow")
        self._hparam_types, self._model_structure = {}, model_structure
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name, value):
        """A new hyperparameter, its type (and whether a list) taken from ``value``."""
        if getattr(self, name, None) is not None or name in self._RESERVED:
            raise ValueError(f"Hyperparameter name is reserved: {name}")
        if isinstance(value, (list, tuple)):
            if not value:
                raise ValueError(f"Multi-valued hyperparameters cannot be empty: {name}")
            self._hparam_types[name] = (type(value[0]), True)
        else:
            self._hparam_types[name] = (type(value), False)
        setattr(self, name, value)

    def set_hparam(self, name, value):
        """Set an existing hyperparameter, cast to its type (ValueError when it cannot be)."""
        kind, is_list = self._hparam_types[name]
        if isinstance(value, (list, tuple)):
            if not is_list:
                raise ValueError(f"Must not pass a list for single-valued parameter: {name}")
            setattr(self, name, [_cast(name, kind, v) for v in value])
        else:
            if is_list:
                raise ValueError(f"Must pass a list for multi-valued parameter: {name}.")
            setattr(self, name, _cast(name, kind, value))

    def del_hparam(self, name):
        if hasattr(self, name):
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values: str):
        """Override from ``"name=value,name=[v1,v2],..."``; an unknown name is a ValueError."""
        for name, text in _ASSIGNMENT.findall(values or ""):
            if name not in self._hparam_types:
                raise ValueError(f"Unknown hyperparameter type for {name}")
            kind, is_list = self._hparam_types[name]
            if is_list:
                items = [t for t in text.strip().strip("[]").split(",") if t.strip()]
                self.set_hparam(name, [_parsed(t, kind) for t in items])
            else:
                self.set_hparam(name, _parsed(text, kind))
        return self

    def override_from_dict(self, values_dict):
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    def parse_json(self, values_json):
        return self.override_from_dict(json.loads(values_json))

    def to_json(self, indent=None, separators=None, sort_keys=False) -> str:
        return json.dumps(self.values(), indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def values(self) -> dict:
        """``{name: value}`` of every hyperparameter."""
        return {name: getattr(self, name) for name in self._hparam_types}

    def get(self, key, default=None):
        """The hyperparameter ``key``, or ``default`` (cast to its type) when there is none."""
        if key in self._hparam_types:
            if default is not None:
                _, is_list = self._hparam_types[key]
                if is_list != isinstance(default, (list, tuple)):
                    raise ValueError(f"Hparam '{key}' and default value have different "
                                     f"types: {default!r}")
            return getattr(self, key)
        return default

    def set_model_structure(self, model_structure):
        self._model_structure = model_structure

    def get_model_structure(self):
        return self._model_structure

    def __contains__(self, key):
        return key in self._hparam_types

    def __str__(self):
        return str(sorted(self.values().items()))

    def __repr__(self):
        return f"{type(self).__name__}({self})"
