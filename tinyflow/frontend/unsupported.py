"""The AttributeError for a TF-1 name TinyFlow does not have: it says whether TensorFlow 1.15
has the name, and suggests close names that exist here (``tf.nn.rleu``: did you mean
tf.nn.relu?; ``tf.relu``: did you mean tf.nn.relu?).

TensorFlow's names are listed in ``tf_names.txt`` beside this module.
"""
from __future__ import annotations

import difflib
import functools
from pathlib import Path

__all__ = ["unsupported"]


@functools.cache  # a constant file, read once
def _tensorflow_names() -> dict[str, frozenset]:
    """``{"tf.nn.": TF 1.15's names in tf.nn, ...}`` from tf_names.txt."""
    names: dict[str, set] = {}
    prefix = None
    for line in Path(__file__).with_name("tf_names.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        if line.startswith("["):
            prefix = line.strip("[]")
            names[prefix] = set()
        else:
            names[prefix].update(line.split())
    return {key: frozenset(value) for key, value in names.items()}


def _close_names(name: str, namespaces: dict) -> list[str]:
    """Up to three full names (``tf.nn.relu``) like ``name``: the same name in another module
    first, then difflib's close matches; the module asked about wins a tie."""
    exact = [prefix + name for prefix, names in namespaces.items() if name in names]
    pool = {}
    for prefix, names in reversed(list(namespaces.items())):
        pool.update({n: prefix for n in names if not n.startswith("_")})
    close = [pool[n] + n for n in difflib.get_close_matches(name, list(pool), n=3, cutoff=0.75)]
    return list(dict.fromkeys(exact + close))[:3]


def unsupported(prefix: str, module: str, name: str, namespaces: dict,
                why: str | None = None) -> AttributeError:
    """The error for ``<prefix><name>`` (``tf.nn.`` and ``foo``) missing from ``module``.

    Parameters
    ----------
    prefix : str
        How programs spell the module: ``"tf."``, ``"tf.nn."``.
    module : str
        The TinyFlow module (``"tinyflow.nn"``), for the message.
    name : str
        The attribute asked for.
    namespaces : dict
        ``{prefix: names there}`` to suggest from, the module asked about first.
    why : str, optional
        Why TinyFlow lacks it, said last.
    """
    message = (f"{prefix}{name} is not supported by TinyFlow (module {module!r} has no "
               f"attribute {name!r})")
    if name in _tensorflow_names().get(prefix, ()):
        message += f"; {prefix}{name} is TensorFlow 1.15's, but TinyFlow does not have it"
    close = _close_names(name, namespaces)
    if close:
        message += f"; did you mean {' or '.join(close)}?"
    return AttributeError(f"{message}: {why}" if why else message)
