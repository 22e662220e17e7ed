"""``tf.version``: ``VERSION``, ``GIT_VERSION`` and ``COMPILER_VERSION`` (also ``tf.VERSION``...)
as TinyFlow reports them: TinyFlow's own, not TensorFlow's (a program checking for "1.15" learns
it runs on TinyFlow); TinyFlow records no git commit, and the one compiler it depends on is the
one that built this Python.  Any other ``tf.version.X`` is an AttributeError saying TinyFlow
does not support it."""
from __future__ import annotations

import platform
import re
from importlib import metadata
from pathlib import Path

from .unsupported import unsupported

__all__ = ["COMPILER_VERSION", "GIT_VERSION", "VERSION"]


def _version() -> str:
    """pyproject.toml's version, the one place it is written: read from the file in a checkout
    (an installed copy of another checkout may be on the path too), else from the installed
    package's metadata, which pip took from that file."""
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    if pyproject.is_file():
        found = re.search(r'^version = "([^"]+)"', pyproject.read_text(), flags=re.MULTILINE)
        if found:
            return found[1]
    try:
        return metadata.version("tinyflow")
    except metadata.PackageNotFoundError:
        return "unknown"


VERSION = _version()
GIT_VERSION = "unknown"
COMPILER_VERSION = platform.python_compiler()


def __getattr__(name):
    raise unsupported("tf.version.", "tinyflow.version", name, {"tf.version.": __all__})
