"""What an ``input_fn`` gives the Estimator, and ``tf.estimator.inputs``' ``numpy_input_fn`` and
``pandas_input_fn``.

An ``input_fn`` returns ``(features, labels)`` tensors (or structures of them), features alone,
or a ``tf.data.Dataset`` of either: the Estimator then reads it through an initializable
iterator, started once the session is made (TF 1.15's ``_DatasetInitializerHook``), so the end
of the dataset (``tf.errors.OutOfRangeError``) ends training, evaluation or prediction.
"""
from __future__ import annotations

import collections

import numpy as np

from ..data import Dataset
from ..session_run_hooks import SessionRunHook

__all__ = ["numpy_input_fn", "pandas_input_fn", "parse_input_fn_result"]


class _DatasetInitializerHook(SessionRunHook):
    """Starts ``iterator`` when the session is made."""

    def __init__(self, iterator):
        self._iterator = iterator

    def begin(self):
        self._initializer = self._iterator.initializer

    def after_create_session(self, session, coord):
        session.run(self._initializer)


def parse_input_fn_result(result) -> tuple:
    """``(features, labels, hooks)`` of what an ``input_fn`` returned: a ``(features, labels)``
    pair, features alone (labels None), or a ``tf.data.Dataset`` of either."""
    hooks = []
    if isinstance(result, Dataset):
        iterator = result.make_initializable_iterator()
        hooks.append(_DatasetInitializerHook(iterator))
        result = iterator.get_next()
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple.")
        return result[0], result[1], hooks
    return result, None, hooks


def _numeric(array: np.ndarray, what: str) -> np.ndarray:
    if array.dtype.kind in "USO":
        raise ValueError(f"{what} holds strings: TinyFlow's executors hold no string tensors "
                         f"(map the strings to numbers, ids, first)")
    return array


def _ordered(x, what: str) -> collections.OrderedDict:
    """``x`` (a dict of arrays, or an array) as an ordered dict of arrays, keys sorted."""
    if isinstance(x, dict):
        if not x:
            raise ValueError(f"{what} cannot be an empty dict")
        return collections.OrderedDict(
            (key, _numeric(np.asarray(value), f"{what}[{key!r}]"))
            for key, value in sorted(x.items()))
    if isinstance(x, np.ndarray):
        if x.size == 0:
            raise ValueError(f"{what} cannot be an empty array")
        return collections.OrderedDict([("__direct_np_input__", _numeric(x, what))])
    raise TypeError(f"{what} must be a dict or array; got {type(x).__name__}")


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000,
                   num_threads=1):
    """An ``input_fn`` giving batches of the numpy arrays ``x`` and ``y`` (TF 1.15's).

    Parameters
    ----------
    x : numpy array or dict of them
        The features: a tensor of batches of ``x`` when it is an array, a dict of them (the
        same keys) when it is a dict.
    y : numpy array or dict of them, optional
        The labels (the input_fn returns ``(features, labels)``; features alone without ``y``).
        Its keys may not be ``x``'s.
    batch_size : int
        Rows per batch; the last batch of the last epoch may be smaller.
    num_epochs : int or None
        Passes over the data (None: forever).
    shuffle : bool
        Required: shuffle the rows (``Dataset.shuffle`` with ``queue_capacity`` as its buffer,
        a new order each epoch).
    queue_capacity, num_threads
        ``queue_capacity`` is the shuffle buffer; ``num_threads`` has nothing to do (the
        dataset is read in the session's thread).

    Returns
    -------
    callable
        The ``input_fn``: it builds a ``tf.data.Dataset`` (``from_tensor_slices``, ``shuffle``,
        ``repeat(num_epochs)``, ``batch``), whose end ends the Estimator's loop.
    """
    if not isinstance(shuffle, bool):
        raise ValueError(f"shuffle must be provided and explicitly set as boolean (it is "  # noqa: TRY004 - TF's
                         f"recommended to set it as True for training); got {shuffle}")

    def input_fn():
        data = _ordered(x, "x")
        feature_keys, target_keys = list(data), None
        if isinstance(y, dict):
            if not y:
                raise ValueError("y cannot be empty dict, use None instead.")
            targets = _ordered(y, "y")
            duplicates = set(feature_keys) & set(targets)
            if duplicates:
                raise ValueError(f"{len(duplicates)} duplicate keys are found in both x and y: "
                                 f"{duplicates}")
            data.update(targets)
            target_keys = list(targets)
        elif y is not None:
            target_keys = "__target_key__"
            while target_keys in data:
                target_keys += "_n"
            data[target_keys] = _numeric(np.asarray(y), "y")
        if len({value.shape[0] if value.ndim else None for value in data.values()}) != 1:
            raise ValueError(
                f"Length of tensors in x and y is mismatched. All elements in x and y must have "
                f"the same length.\nShapes in x: {({k: data[k].shape for k in feature_keys})}\n"
                f"Shapes in y: {_target_shapes(data, target_keys)}\n")
        dataset = Dataset.from_tensor_slices(_split(data, x, feature_keys, target_keys))
        if shuffle:
            dataset = dataset.shuffle(queue_capacity)
        return dataset.repeat(num_epochs).batch(batch_size)

    return input_fn


def _is_pandas(value, kind: str) -> bool:
    """Whether ``value`` is a pandas ``kind`` (pandas is not imported: it is optional)."""
    return type(value).__name__ == kind and type(value).__module__.startswith("pandas")


def pandas_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000,
                    num_threads=1, target_column="target"):
    """An ``input_fn`` giving batches of a pandas DataFrame's columns (TF 1.15's): features
    ``{column: batch}``, labels a batch of the Series ``y`` (a dict per column when ``y`` is a
    DataFrame), read as :func:`numpy_input_fn` reads arrays (``shuffle`` required, the same
    ``batch_size``, ``num_epochs`` and ``queue_capacity``).  ``x`` and ``y`` must have the
    same index; ``target_column`` may not be a column of ``x``.  String columns are refused
    (TinyFlow holds no strings)."""
    if not _is_pandas(x, "DataFrame"):
        raise TypeError(f"x must be a pandas DataFrame, got {type(x).__name__}")
    if not isinstance(shuffle, bool):
        raise ValueError(f"shuffle must be provided and explicitly set as boolean (it is "  # noqa: TRY004 - TF's
                         f"recommended to set it as True for training); got {shuffle}")
    features = {str(column): x[column].to_numpy() for column in x.columns}
    labels = None
    if y is not None:
        if target_column in x.columns:
            raise ValueError(f"Cannot use name {target_column} for target column: DataFrame "
                             f"already has a column with that name: {x.columns}")
        if not np.array_equal(x.index, y.index):
            raise ValueError(f"Index for x and y are mismatched.\nIndex for x: {x.index}\n"
                             f"Index for y: {y.index}\n")
        labels = ({str(column): y[column].to_numpy() for column in y.columns}
                  if _is_pandas(y, "DataFrame") else y.to_numpy())
    return numpy_input_fn(features, labels, batch_size=batch_size, num_epochs=num_epochs,
                          shuffle=shuffle, queue_capacity=queue_capacity,
                          num_threads=num_threads)


def _target_shapes(data, target_keys):
    if target_keys is None:
        return None
    if isinstance(target_keys, str):
        return data[target_keys].shape
    return {key: data[key].shape for key in target_keys}


def _split(data: dict, x, feature_keys, target_keys):
    """The arrays as the input_fn gives their batches: ``(features, labels)`` or features."""
    features = (data[feature_keys[0]] if isinstance(x, np.ndarray)
                else {key: data[key] for key in feature_keys})
    if target_keys is None:
        return features
    if isinstance(target_keys, str):
        return features, data[target_keys]
    return features, {key: data[key] for key in target_keys}


def __getattr__(name):
    raise AttributeError(f"tf.estimator.inputs.{name} is not supported by TinyFlow (it has "
                         f"numpy_input_fn and pandas_input_fn)")
