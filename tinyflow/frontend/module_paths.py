"""TensorFlow's module paths under ``tinyflow``: ``import tinyflow.contrib.slim as slim``, ``from
tinyflow.contrib import rnn``, ``from tinyflow.nn import rnn_cell`` give the namespaces
``tf.contrib.slim``, ``tf.contrib.rnn``, ``tf.nn.rnn_cell``, as ``import tensorflow.contrib.slim``
does in TensorFlow 1.15.  A finder first on ``sys.meta_path`` answers for the dotted names under
``tinyflow.<name>`` where no package or module ``tinyflow/<name>`` exists, by following the
attributes from ``tinyflow`` (first, so that ``tinyflow.contrib.slim`` is not loaded a second
time from ``frontend/contrib/slim.py`` under the other name); a name TinyFlow lacks is a
ModuleNotFoundError carrying the AttributeError's message."""
from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import types
from pathlib import Path

__all__ = ["install"]


class _Namespaces(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self):
        root = Path(__file__).resolve().parent.parent  # tinyflow/
        self.files = {p.stem for p in root.iterdir() if p.suffix == ".py" or p.is_dir()}

    def find_spec(self, fullname, path=None, target=None):
        parts = fullname.split(".")
        if (parts[0] != "tinyflow" or len(parts) < 2 or parts[1] in self.files
                or "tinyflow" not in sys.modules):
            return None
        found = sys.modules["tinyflow"]
        for depth, part in enumerate(parts[1:], start=2):
            try:
                found = getattr(found, part)
            except AttributeError as err:
                if depth < len(parts):  # a parent that is no namespace: Python's own error
                    return None
                raise ModuleNotFoundError(f"No module named '{fullname}': {err}",
                                          name=fullname) from None
        if not isinstance(found, types.ModuleType):
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        # the namespace module itself (its own __name__ and __spec__ kept), now also known
        # to sys.modules by TensorFlow's path
        found = sys.modules["tinyflow"]
        for part in spec.name.split(".")[1:]:
            found = getattr(found, part)
        return found

    def exec_module(self, module):
        pass  # already imported under its own name


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Namespaces) for f in sys.meta_path):
        sys.meta_path.insert(0, _Namespaces())
