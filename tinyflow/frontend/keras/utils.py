"""``tf.keras.utils`` as TensorFlow 1.15 has it: :func:`to_categorical` (class ids to one-hot
rows), :func:`normalize` (rows scaled to unit norm) and ``get_file`` (downloads into Keras'
cache, :mod:`.data_utils`)."""
from __future__ import annotations

import numpy as np

from ...nnvm import host_memory
from ...nnvm.errors import ResourceExhaustedError
from ..unsupported import unsupported
from .data_utils import get_file

__all__ = ["get_file", "normalize", "to_categorical"]


def to_categorical(y, num_classes=None, dtype="float32"):
    """One-hot rows of the class ids ``y`` (a trailing axis of 1 dropped): shape
    ``y.shape + (num_classes,)``, ``num_classes`` by default ``max(y) + 1``.

    An id not below ``num_classes`` is numpy's IndexError, a negative one counts from the end
    (TF's, which indexes with it).

    Raises
    ------
    ResourceExhaustedError
        When the result is larger than the host's free memory.
    """
    y = np.array(y, dtype="int")
    shape = y.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = tuple(shape[:-1])
    y = y.ravel()
    if not num_classes:
        num_classes = int(np.max(y)) + 1 if y.size else 0
    needed = y.size * int(num_classes) * np.dtype(dtype).itemsize
    available, source = host_memory.host_available_bytes()
    if needed > available:
        raise ResourceExhaustedError(
            f"to_categorical: {y.size} rows of {num_classes} classes need "
            f"{host_memory.format_bytes(needed)}, more than the {available} available "
            f"({source})")
    categorical = np.zeros((y.size, num_classes), dtype=dtype)
    categorical[np.arange(y.size), y] = 1
    return categorical.reshape(shape + (num_classes,))


def normalize(x, axis=-1, order=2):
    """``x`` divided by its ``order``-norm along ``axis`` (a zero norm left as 1)."""
    norms = np.atleast_1d(np.linalg.norm(x, order, axis))
    norms[norms == 0] = 1
    return x / np.expand_dims(norms, axis)


def __getattr__(name):
    raise unsupported("tf.keras.utils.", "tinyflow.keras.utils", name,
                      {"tf.keras.utils.": __all__})


def __dir__():
    return sorted(__all__)
