"""``tf.data.experimental.group_by_window`` and ``bucket_by_sequence_length`` (TensorFlow 1.15):
elements grouped by a traced key function into windows, each window given as a dataset to a
traced reduce function whose dataset's elements are produced in its place.

As TF's GroupByWindowDataset: a window is reduced as soon as it holds its size (``window_size``
or ``window_size_func(key)``); at the end of the input the windows still open are reduced in
increasing key order.  ``bucket_by_sequence_length`` is TF's composition of it: the key is the
bucket of ``element_length_func``'s length, the reduce function a (padded) batch of the
bucket's batch size.
"""
from __future__ import annotations

import numpy as np

from ...nnvm.errors import InvalidArgumentError
from ...nnvm.symbol import Symbol
from ...nnvm.tensor_shape import TensorShape
from ..api import cast, constant, reduce_sum
from ..array_ops import gather
from ..dtypes import int64
from . import pipeline
from .dataset import Dataset, _integer, _Window
from .functions import TracedFunction
from .structure import Spec

__all__ = ["bucket_by_sequence_length", "group_by_window"]

_KEY = Spec(int64, TensorShape([]))


class _GroupByWindow(Dataset):
    _kind = "GroupByWindowDataset"

    def __init__(self, dataset, key_func, reduce_func, window_size, window_size_func):
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` "
                             "argument must be specified.")
        self._key = TracedFunction(key_func, dataset._specs, "group_by_window()'s key_func")
        _check_key(self._key.output_specs, "key_func")
        self._window = _Window(dataset._specs)
        self._reduce = TracedFunction(lambda key: reduce_func(key, self._window), _KEY,
                                      "group_by_window()'s reduce_func", returns=Dataset)
        if window_size_func is None:
            self._size = _integer(window_size, "group_by_window", "window_size", low=1)
            captures = [self._size] if isinstance(self._size, Symbol) else []
        else:
            self._size = TracedFunction(window_size_func, _KEY,
                                        "group_by_window()'s window_size_func")
            _check_key(self._size.output_specs, "window_size_func")
            captures = self._size.captures
        super().__init__(self._reduce.dataset._specs, (dataset,),
                         self._key.captures + self._reduce.captures + captures)

    def _window_size(self, key, context) -> int:
        if isinstance(self._size, TracedFunction):
            size = int(self._size([np.int64(key)], context)[0])
        else:
            size = context.integer(self._size)
        if size <= 0:
            raise InvalidArgumentError(None, None, (
                f"{self._what}: Window size must be greater than zero, but got {size}."))
        return size

    def _reduced(self, key, elements, context):
        captured = self._reduce.outputs  # as traced (its graph may read stand-ins of them)
        values = self._reduce([np.int64(key)], context)
        inner = pipeline.Context(dict(zip([c.outputs[0] for c in captured], values)))
        inner.state[self._window] = elements
        return self._reduce.dataset._elements(inner)

    def _elements(self, context):
        windows: dict[int, list] = {}
        for element in self._inputs[0]._elements(context):
            key = int(self._key(element, context)[0])
            window = windows.setdefault(key, [])
            window.append(element)
            if len(window) >= self._window_size(key, context):
                yield from self._reduced(key, windows.pop(key), context)
        for key in sorted(windows):  # the input ended: what is left, by increasing key
            yield from self._reduced(key, windows[key], context)


def _check_key(specs, what):
    if not isinstance(specs, Spec) or specs.dtype != int64 or specs.shape.ndims not in (0, None):
        raise ValueError(f"`{what}` must return a single tf.int64 tensor. Got {specs}")


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """``dataset.apply(group_by_window(...))``: elements grouped by ``key_func(element)`` (an
    int64 scalar) into windows of ``window_size`` (or ``window_size_func(key)``), each
    replaced by the elements of ``reduce_func(key, window_dataset)``."""
    return lambda dataset: _GroupByWindow(dataset, key_func, reduce_func, window_size,
                                          window_size_func)


def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes,
                              padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """Batches of elements of similar length: an element of length ``n`` goes to bucket ``i``
    where ``bucket_boundaries[i-1] <= n < bucket_boundaries[i]``, batched (padded, unless
    ``no_padding``) ``bucket_batch_sizes[i]`` at a time."""
    if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
        raise ValueError("len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1")
    if pad_to_bucket_boundary:
        raise TypeError("bucket_by_sequence_length(pad_to_bucket_boundary=True) is not "
                        "supported by TinyFlow (padded shapes are static there)")
    boundaries = [int(b) for b in bucket_boundaries]

    def bucket(*element):  # how many boundaries the length reached: TF's bucket id
        length = cast(element_length_func(*element), int64)
        return reduce_sum(cast(constant(boundaries, dtype="int64") <= length, int64))

    def batch_size(bucket_id):
        return gather(constant(list(bucket_batch_sizes), dtype="int64"), bucket_id)

    def batches(bucket_id, window):
        if no_padding:
            return window.batch(batch_size(bucket_id), drop_remainder=drop_remainder)
        return window.padded_batch(batch_size(bucket_id), padded_shapes, padding_values,
                                   drop_remainder=drop_remainder)
    return group_by_window(bucket, batches, window_size_func=batch_size)
