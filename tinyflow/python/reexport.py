"""TensorFlow's ``tensorflow.python.*`` modules as ``tinyflow.python.*``: each re-exports
TinyFlow's objects of the names TF's module holds (``tf_modules.txt`` beside this file lists
them, and the ``tf`` namespace TinyFlow keeps each in), so that ``from tinyflow.python.framework
import ops`` then ``ops.get_default_graph()`` is ``tf.get_default_graph()``.  Names resolve on
first use (a module that names ``Session`` does not load torch until it is asked for); a name
TinyFlow lacks is an AttributeError saying so.
"""
from __future__ import annotations

import functools
import sys
from pathlib import Path

import tinyflow

__all__ = ["modules", "reexport"]


@functools.cache
def modules() -> dict:
    """``{"ops.math_ops": ("tf.", frozenset(names)), ...}`` from tf_modules.txt."""
    table, section = {}, None
    for line in Path(__file__).with_name("tf_modules.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        if line.startswith("["):
            section, space = line[1:].split("] ")
            table[section] = (space, set())
        else:
            table[section][1].update(line.split())
    return {key: (space, frozenset(names)) for key, (space, names) in table.items()}


def _namespace(space: str):
    """``"tf.nn.rnn_cell."`` -> ``tinyflow.nn.rnn_cell``."""
    found = tinyflow
    for part in space.strip(".").split(".")[1:]:
        found = getattr(found, part)
    return found


def reexport(module_name: str):
    """``(__getattr__, __dir__)`` of module ``tinyflow.python.<path>``: TF's names of
    ``tensorflow.python.<path>`` resolved to TinyFlow's objects (``__all__``: those it has)."""
    path = module_name.removeprefix("tinyflow.python.")
    space, names = modules()[path]

    def __getattr__(name):
        if name == "__all__":
            return sorted(n for n in names if _has(space, n))
        if name in names and _has(space, name):
            value = getattr(_namespace(space), name)
            setattr(sys.modules[module_name], name, value)  # resolved once
            return value
        known = ("; TensorFlow 1.15's module has it, but TinyFlow does not" if name in names
                 else "")
        raise AttributeError(f"tensorflow.python.{path}.{name} is not supported by TinyFlow "
                             f"(module {module_name!r} has no attribute {name!r}){known}")

    def __dir__():
        return sorted(names)
    return __getattr__, __dir__


def _has(space: str, name: str) -> bool:
    try:
        getattr(_namespace(space), name)
    except AttributeError:
        return False
    return True
