"""``tf.py_function`` and ``tf.timestamp``: ops whose value Python computes when they run.

``tf.py_function`` (TensorFlow 1.15's EagerPyFunc) calls its function with one value per input
that has TensorFlow's ``.numpy()`` (here a numpy array with that method), and converts what it
returns to the ``Tout`` dtypes as ``tf.convert_to_tensor`` would (``2.5`` or a float64 array to
float32, ints to floats; a float to an int is TF's InvalidArgumentError), unlike
``tf.py_func``, whose results must have their dtypes exactly.  It is stateful.  TensorFlow
differentiates the TF ops the function runs on its eager tensors with a tape; TinyFlow has no
eager ops (the function computes on numpy values), so no gradient flows through
(``tf.gradients`` gives None for its inputs).
"""
from __future__ import annotations

import numpy as np

from ..nnvm.symbol import Symbol, create_op
from .control_flow_ops import _PyCall, _tf_error, python_op
from .errors import InvalidArgumentError

__all__ = ["py_function", "timestamp"]


class EagerValue(np.ndarray):
    """An input's value as a ``py_function`` sees it: a numpy array with TensorFlow's
    ``.numpy()`` (a copy, as an eager tensor's)."""

    def numpy(self) -> np.ndarray:
        return np.array(self)


class _EagerCall(_PyCall):
    """A py_function node's run-time side: the function on :class:`EagerValue` inputs, its
    results converted to Tout as TF's ``EagerFunc._call``: a list or tuple ``zip``-ped with
    Tout even for a single dtype (extra results dropped, as TensorFlow's), each through
    ``convert_to_tensor``'s dtype rules."""

    def __call__(self, node, inputs):
        touts = node.attrs["Tout"]
        try:
            result = self.func(*[np.array(v).view(EagerValue) for v in inputs])
        except Exception as err:
            raise _tf_error(err, node) from err
        values = list(result) if isinstance(result, (list, tuple)) else [result]
        if len(values) < len(touts):
            raise InvalidArgumentError(None, node, (
                f"py_function '{node.name}' returned {len(values)} values, but Tout has "
                f"{len(touts)} dtypes ({', '.join(touts)})"))
        arrays = [_converted(value, dtype, node) for value, dtype in zip(values, touts)]
        arrays = [a[()] if a.ndim == 0 else a for a in arrays]
        return arrays[0] if len(arrays) == 1 else arrays


def _converted(value, dtype: str, node) -> np.ndarray:
    """``value`` as a ``dtype`` array, as ``tf.convert_to_tensor(value, dtype)``: a value of
    the same kind or one that widens to it (int to float); TF's InvalidArgumentError else."""
    array = np.asarray(value)
    target = np.dtype(dtype)
    if value is None or array.dtype.kind not in "biuf" or not (
            np.can_cast(array.dtype, target, "same_kind") or array.dtype.kind == "b" == target.kind):
        raise InvalidArgumentError(None, node, (
            f"TypeError: Cannot convert {value!r} to EagerTensor of dtype {dtype} (a result of "
            f"py_function '{node.name}')"))
    return np.asarray(array.astype(target, copy=False), order="C")


def py_function(func, inp, Tout, name=None) -> Symbol | list[Symbol]:
    """Wrap the Python function ``func`` as an op, as TensorFlow 1.15's ``tf.py_function``.

    Parameters
    ----------
    func : callable
        Called every run with one value per input (a numpy array with ``.numpy()``); returns
        one value per ``Tout`` dtype (a list or tuple of them when ``Tout`` is a list), each
        converted to its dtype as ``tf.convert_to_tensor`` would.
    inp : list of Symbol
        The inputs.
    Tout : DType or list of DType
        The outputs' dtypes: a single dtype gives one tensor, a list a list.
    name : str, optional
        The node's name (default ``"EagerPyFunc"``, TensorFlow's).

    The outputs' shapes are known once ``func`` has run (see :func:`tf.py_func`); no gradient
    flows through (the module's docstring says why).
    """
    return python_op(_EagerCall, "tf.py_function", func, inp, Tout, True, name or "EagerPyFunc")


def timestamp(name=None) -> Symbol:
    """The wall clock when the op runs, in seconds since the Unix epoch (float64 scalar), as
    TensorFlow 1.15's ``tf.timestamp``; each run reads it again."""
    return create_op("timestamp", name=name or "Timestamp")
