"""``tf.nn``'s pooling names past ``max_pool`` / ``avg_pool`` and its grey-scale morphology, as
TensorFlow 1.15 builds them.

- ``max_pool2d`` / ``avg_pool2d`` are the 2-D pools; ``max_pool1d`` / ``avg_pool1d`` pool over
  a width, TF's way: an axis of size 1 put in front of it (``expand_dims``, the 2-D pool,
  ``squeeze``); ``max_pool_v2`` / ``avg_pool_v2`` pick by the input's rank (3-D windows,
  another component's, are a ValueError here).
- ``dilation2d`` is ``max over the window of (input + filter)``, each tap a strided slice of
  the input padded with -inf (TF's SAME or VALID with the taps ``rates`` apart), the maximum
  taken over the stacked taps; ``erosion2d`` is TF's ``-dilation2d(-value, reversed kernel)``.
- ``max_pool_with_argmax``: the values are ``max_pool``'s (so is the gradient: TF's
  MaxPoolGradWithArgmax scatters it to the same first maximum of each window); the argmax is
  TF's flattened ``((b * height + y) * width + x) * channels + c`` (``b`` only with
  ``include_batch_in_index``), the first tap of the window (row, then column) holding a
  strictly greater value, composed of one strided slice per tap of the -inf-padded input.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ...nnvm.symbol import current_context
from ..api import cast, greater, maximum, reduce_max
from ..array_ops import expand_dims, pad, reverse, squeeze, stack, zeros_like
from ..dtypes import as_dtype, int32, int64
from ..math_ops import convert_to_tensor, cumsum
from .functions import _padding, avg_pool, max_pool

__all__ = ["avg_pool1d", "avg_pool2d", "avg_pool_v2", "dilation2d", "erosion2d", "max_pool1d",
           "max_pool2d", "max_pool_v2", "max_pool_with_argmax"]

avg_pool2d = avg_pool  # TF 1.15's tf.nn.avg_pool2d is tf.nn.avg_pool


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """:func:`max_pool` (TF 1.15's TF-2 spelling: ``input``)."""
    return max_pool(convert_to_tensor(input, name="input"), ksize, strides, padding,
                    data_format, name)


def _window_1d(value, what, channels_last) -> list:
    """TF's _get_sequence for one spatial axis, as a 2-D window ``[1, 1, k, 1]`` (NWC) or
    ``[1, 1, 1, k]`` (NCW)."""
    if isinstance(value, numbers.Integral):
        value = [value]
    value = [int(v) for v in value]
    if len(value) == 3:
        value = [value[1] if channels_last else value[2]]
    if len(value) != 1:
        raise ValueError(f"{what} should be of length 1 or 3, got {value}")
    return [1, 1, value[0], 1] if channels_last else [1, 1, 1, value[0]]


def _pool_1d(pool, input, ksize, strides, padding, data_format, name, function):
    data_format = "NWC" if data_format is None else data_format
    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"{function}: data_format must be 'NWC' or 'NCW', got {data_format!r}")
    channels_last = data_format == "NWC"
    axis = 1 if channels_last else 2
    with current_context().name_scope(name or function):
        pooled = pool(expand_dims(convert_to_tensor(input, name="input"), axis),
                      _window_1d(ksize, "ksize", channels_last),
                      _window_1d(strides, "strides", channels_last), padding,
                      "NHWC" if channels_last else "NCHW")
        return squeeze(pooled, [axis])


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """Max over windows of ``ksize`` along the width of ``input`` ``[batch, width, channels]``
    ('NWC') or ``[batch, channels, width]`` ('NCW'), moved by ``strides``."""
    return _pool_1d(max_pool, input, ksize, strides, padding, data_format, name, "max_pool1d")


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """Mean over windows along the width, as :func:`max_pool1d`'s (SAME padding not counted)."""
    return _pool_1d(avg_pool, input, ksize, strides, padding, data_format, name, "avg_pool1d")


def _pool_by_rank(pools, input, ksize, strides, padding, data_format, name, function):
    input = convert_to_tensor(input, name="input")
    rank = input.get_shape().ndims
    if rank not in (3, 4):
        raise ValueError(f"{function}: TinyFlow pools 1-D and 2-D windows (an input of rank 3 "
                         f"or 4), got shape {input.get_shape()}")
    if rank == 3:
        return pools[0](input, ksize, strides, padding, data_format, name)
    return pools[1](input, ksize, strides, padding, data_format or "NHWC", name)


def max_pool_v2(input, ksize, strides, padding, data_format=None, name=None):
    """:func:`max_pool1d` or :func:`max_pool2d` by the input's rank (3 or 4)."""
    return _pool_by_rank((max_pool1d, max_pool2d), input, ksize, strides, padding,
                         data_format, name, "max_pool_v2")


def avg_pool_v2(input, ksize, strides, padding, data_format=None, name=None):
    """:func:`avg_pool1d` or :func:`avg_pool2d` by the input's rank (3 or 4)."""
    return _pool_by_rank((avg_pool1d, avg_pool), input, ksize, strides, padding,
                         data_format, name, "avg_pool_v2")


def _four(value, what, function) -> tuple:
    """``[1, h, w, 1]`` -> (h, w)."""
    value = [int(v) for v in value]
    if len(value) != 4 or value[0] != 1 or value[3] != 1 or min(value) < 1:
        raise ValueError(f"{function}: {what} must be [1, h, w, 1] of positive ints, got "
                         f"{value}")
    return value[1], value[2]


def _same_pads(size, stride, extent) -> tuple:
    out = math.ceil(size / stride)
    total = max((out - 1) * stride + extent - size, 0)
    return out, total // 2, total - total // 2


def dilation2d(input, filter=None, strides=None, rates=None, padding=None, name=None,
               filters=None, dilations=None):
    """TF 1.15's grey-scale dilation of ``input`` ``[batch, height, width, depth]`` by
    ``filter`` ``[filter_height, filter_width, depth]``: ``max over the window of
    (input + filter)``, the window's taps ``rates`` apart, moved by ``strides`` (both
    ``[1, h, w, 1]``), ``padding`` SAME (positions outside the input left out) or VALID.
    Its gradient is the maximum's."""
    filter = filters if filter is None else filter
    rates = dilations if rates is None else rates
    function = "dilation2d"
    image = convert_to_tensor(input, name="input")
    kernel = convert_to_tensor(filter, name="filter")
    padding = _padding(padding)
    (stride_h, stride_w), (rate_h, rate_w) = (_four(strides, "strides", function),
                                              _four(rates, "rates", function))
    shape, taps = image.get_shape().as_list(), kernel.get_shape().as_list()
    if len(shape) != 4 or len(taps) != 3 or None in shape[1:] + taps or taps[2] != shape[3]:
        raise ValueError(f"{function}: input [batch, height, width, depth] and filter "
                         f"[height, width, depth] must agree, known when the graph is built: "
                         f"got {image.get_shape()} and {kernel.get_shape()}")
    extent = ((taps[0] - 1) * rate_h + 1, (taps[1] - 1) * rate_w + 1)
    if padding == "SAME":
        (rows, top, bottom), (cols, left, right) = (
            _same_pads(shape[1], stride_h, extent[0]), _same_pads(shape[2], stride_w, extent[1]))
    else:
        rows = math.ceil((shape[1] - extent[0] + 1) / stride_h)
        cols = math.ceil((shape[2] - extent[1] + 1) / stride_w)
        top = bottom = left = right = 0
        if rows <= 0 or cols <= 0:
            raise ValueError(f"{function}: the filter {taps} with rates {rates} does not fit "
                             f"the input {shape} (VALID)")
    with current_context().name_scope(name or "dilation2d"):
        padded = pad(image, [[0, 0], [top, bottom], [left, right], [0, 0]],
                     constant_values=float("-inf"))
        shifted = [padded[:, dy * rate_h:dy * rate_h + (rows - 1) * stride_h + 1:stride_h,
                          dx * rate_w:dx * rate_w + (cols - 1) * stride_w + 1:stride_w, :]
                   + kernel[dy, dx] for dy in range(taps[0]) for dx in range(taps[1])]
        return reduce_max(stack(shifted, axis=0), axis=0)


def erosion2d(value, kernel, strides, rates, padding, name=None):
    """TF 1.15's grey-scale erosion: ``-dilation2d(-value, kernel reversed in height and
    width)``, the arguments as :func:`dilation2d`'s."""
    with current_context().name_scope(name or "erosion2d"):
        flipped = reverse(convert_to_tensor(kernel, name="kernel"), [0, 1])
        return -dilation2d(-convert_to_tensor(value, name="value"), flipped, strides, rates,
                           padding)


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", Targmax=None,
                         name=None, output_dtype=None, include_batch_in_index=False):
    """TF 1.15's ``tf.nn.max_pool_with_argmax``: ``(output, argmax)``, ``output`` as
    :func:`max_pool` (NHWC only) and ``argmax`` each maximum's flattened position in ``input``,
    ``((b * height + y) * width + x) * channels + c`` (without ``b * ...`` unless
    ``include_batch_in_index``), of ``Targmax`` (or ``output_dtype``) int64 or int32.  The
    height, width and channels must be known when the graph is built."""
    function = "max_pool_with_argmax"
    if data_format != "NHWC":
        raise ValueError(f"{function}: data formats other than 'NHWC' are not supported, got "
                         f"data_format={data_format!r}")
    index_dtype = as_dtype(output_dtype or Targmax or int64)
    if index_dtype not in (int64, int32):
        raise TypeError(f"{function}: Targmax must be int64 or int32, got {index_dtype}")
    image = convert_to_tensor(input, name="input")
    dims = image.get_shape().as_list() if image.get_shape().ndims is not None else None
    if dims is None or len(dims) != 4 or None in dims[1:]:
        raise ValueError(f"{function}: input must be [batch, height, width, channels] with "
                         f"known height, width and channels, got {image.get_shape()}")
    (kh, kw), (sh, sw) = _four(ksize, "ksize", function), _four(strides, "strides", function)
    padding = _padding(padding)
    with current_context().name_scope(name or "MaxPoolWithArgmax"):
        output = max_pool(image, [1, kh, kw, 1], [1, sh, sw, 1], padding, "NHWC")
        argmax = _window_argmax(image, dims[1:], (kh, kw), (sh, sw), padding,
                                include_batch_in_index)
        return output, (argmax if index_dtype == int64 else cast(argmax, index_dtype))


def _window_argmax(image, dims, kernel, stride, padding, with_batch):
    """The flattened input position (int64) of each window's first maximum."""
    height, width, channels = dims
    if padding == "SAME":
        (rows, top, bottom), (cols, left, right) = (_same_pads(height, stride[0], kernel[0]),
                                                    _same_pads(width, stride[1], kernel[1]))
    else:
        rows, cols = (height - kernel[0]) // stride[0] + 1, (width - kernel[1]) // stride[1] + 1
        top = bottom = left = right = 0
    padding_spec = [[0, 0], [top, bottom], [left, right], [0, 0]]
    values = pad(image, padding_spec, constant_values=float("-inf"))
    # positions within one image; the padding's (-1) is never a window's strict maximum
    positions = np.pad(np.arange(height * width * channels, dtype=np.int64).reshape(
        1, height, width, channels), padding_spec, constant_values=-1)

    def tap(tensor, dy, dx):
        return tensor[:, dy:dy + (rows - 1) * stride[0] + 1:stride[0],
                      dx:dx + (cols - 1) * stride[1] + 1:stride[1], :]
    best, argmax = tap(values, 0, 0), convert_to_tensor(tap(positions, 0, 0))
    for dy in range(kernel[0]):
        for dx in range(kernel[1]):
            if dy or dx:  # TF's kernel: a later tap wins only when strictly greater
                candidate = tap(values, dy, dx)
                better = cast(greater(candidate, best), int64)
                argmax = argmax + better * (tap(positions, dy, dx) - argmax)
                best = maximum(best, candidate)
    rows_of_images = cast(zeros_like(best), int64)  # one row per image
    if with_batch:  # each image's number b, counted along the batch (its size may be unknown)
        rows_of_images = cumsum(rows_of_images + 1, axis=0, exclusive=True) * (
            height * width * channels)
    return argmax + rows_of_images
