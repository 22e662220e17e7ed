"""``tf.nn``'s convolutions past ``conv2d``, as TensorFlow 1.15 builds them.

- ``conv1d`` is ``conv2d`` over an axis of size 1 put in front of the width (``expand_dims``,
  ``conv2d``, ``squeeze``, as TF's graph), so its gradients are conv2d's.
- ``atrous_conv2d`` and ``convolution``'s ``dilation_rate`` are conv2d's ``dilations``: the
  kernel's taps ``rate`` pixels apart (SAME keeps the size, VALID loses ``(k - 1) * rate``).
- ``depthwise_conv2d`` convolves each input channel alone with its ``channel_multiplier``
  filters (filter ``[kh, kw, in, multiplier]``, output channel ``c * multiplier + m``): the
  conv2d op with ``filter_format="HWIM"`` (torch's ``groups = in``); ``separable_conv2d`` is
  that, then a 1x1 ``conv2d`` of the ``pointwise_filter``.
- ``convolution`` and ``pool`` take 1-D or 2-D windows (3-D is a ValueError).
"""
from __future__ import annotations

import numbers

from ...nnvm.symbol import Symbol, create_op, current_context
from .. import array_ops
from .functions import _data_format, _dilation_attr, _padding, _spatial, avg_pool, conv2d, max_pool

__all__ = ["atrous_conv2d", "conv1d", "convolution", "depthwise_conv2d",
           "depthwise_conv2d_native", "pool", "separable_conv2d"]

_LAYOUTS_1D = {None: "NHWC", "NWC": "NHWC", "NHWC": "NHWC", "NCW": "NCHW", "NCHW": "NCHW"}


def _width(value, what, data_format):
    """TensorFlow's 1-D stride / dilation: an int, 1 int, or 3 in the data's layout -> (1, w)."""
    value = [int(v) for v in ([value] if isinstance(value, numbers.Integral) else value)]
    if len(value) == 3:
        channels = value[1] if data_format == "NCHW" else value[2]
        if (value[0], channels) != (1, 1):
            raise ValueError(f"{what} {value} must be 1 for the batch and channels")
        value = value[2:] if data_format == "NCHW" else value[1:2]
    if len(value) != 1 or value[0] < 1:
        raise ValueError(f"{what} must be a positive int, or 1 or 3 of them, got {value}")
    return (1, value[0])


def _layout_1d(data_format) -> str:
    if data_format not in _LAYOUTS_1D:
        raise ValueError(f'data_format must be "NWC" or "NCW", got {data_format!r}')
    return _LAYOUTS_1D[data_format]


def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None,
           data_format=None, name=None, input=None, dilations=None) -> Symbol:
    """TensorFlow's 1-D convolution of ``value`` ``[batch, width, in]`` ('NWC', the default;
    'NCW': ``[batch, in, width]``) with ``filters`` ``[k, in, out]``.

    Parameters
    ----------
    stride : int or list
        An int, or 1 or 3 ints in the data's layout.
    padding : {'VALID', 'SAME'}
        SAME gives ``ceil(width / stride)`` outputs, the odd padding pixel after the data.
    dilations : int or list, optional
        The filter's taps ``dilations`` apart (as ``stride``).

    Returns
    -------
    Symbol
        ``[batch, width', out]`` ('NWC'): conv2d of ``value`` with an axis of size 1 before the
        width, that axis squeezed out again.
    """
    value = input if value is None else value
    if value is None or filters is None or stride is None or padding is None:
        raise TypeError("conv1d() needs value, filters, stride and padding")
    data_format = _layout_1d(data_format)
    axis = 2 if data_format == "NCHW" else 1  # the new height axis, before the width
    strides = _width(stride, "stride", data_format)
    rate = (1, 1) if dilations is None else _width(dilations, "dilations", data_format)
    with current_context().name_scope(name or "conv1d"):
        value = array_ops.expand_dims(value, axis, name="ExpandDims")
        filters = array_ops.expand_dims(filters, 0, name="ExpandDims_1")
        result = conv2d(value, filters, strides, padding, data_format=data_format,
                        dilations=rate, name="Conv2D")
        return array_ops.squeeze(result, [axis], name="Squeeze")


def _no_strides_with_rate(strides, rate, function):
    if max(strides) > 1 and max(rate) > 1:
        raise ValueError(f"{function}: strides > 1 not supported in conjunction with "
                         f"dilation rate > 1, got strides {list(strides)} and rate {list(rate)}")


def atrous_conv2d(value, filters, rate, padding, name=None) -> Symbol:
    """``conv2d`` of NHWC ``value`` with ``filters`` ``[kh, kw, in, out]`` whose taps are
    ``rate`` pixels apart (stride 1): SAME keeps the size, VALID gives ``size - (k - 1) *
    rate``."""
    if not isinstance(rate, numbers.Integral) or rate < 1:
        raise ValueError(f"atrous_conv2d: rate {rate!r} cannot be less than one")
    return conv2d(value, filters, [1, 1, 1, 1], padding, dilations=[1, rate, rate, 1],
                  name=name or "convolution")


def _spatial_dims(input, filter, what) -> int:
    """1 or 2: the window's rank, from the filter's (or the input's) static rank."""
    for tensor, extra in ((filter, 2), (input, 2)):
        ndims = None if tensor is None else array_ops._tensor(tensor).get_shape().ndims
        if ndims is not None:
            if ndims - extra not in (1, 2):
                raise ValueError(f"{what}: {ndims - extra}-D windows are not supported by "
                                 f"TinyFlow (1-D and 2-D only; input and filter of rank 3 or 4)")
            return ndims - extra
    raise ValueError(f"{what}: the rank of the input or filter must be known")


def _window(value, n, what, default=1) -> tuple:
    """An N-D window argument (strides, dilation_rate: None, an int, or N ints)."""
    value = [default] * n if value is None else value
    value = [value] * n if isinstance(value, numbers.Integral) else [int(v) for v in value]
    if len(value) != n or min(value) < 1:
        raise ValueError(f"{what} must be {n} positive int(s), got {value}")
    return tuple(value)


def convolution(input, filter=None, padding=None, strides=None, dilation_rate=None, name=None,
                data_format=None, filters=None, dilations=None) -> Symbol:
    """TensorFlow's N-D convolution for N = 1 (``conv1d``) or 2 (``conv2d``): ``strides`` and
    ``dilation_rate`` N ints (or an int), not both above 1; ``data_format`` 'NWC' / 'NCW' or
    'NHWC' / 'NCHW'."""
    filter = filters if filter is None else filter
    dilation_rate = dilations if dilation_rate is None else dilation_rate
    n = _spatial_dims(input, filter, "convolution")
    strides = _window(strides, n, "strides")
    rate = _window(dilation_rate, n, "dilation_rate")
    _no_strides_with_rate(strides, rate, "convolution")
    if n == 1:
        return conv1d(input, filter, strides[0], padding, data_format=data_format,
                      dilations=rate[0], name=name or "convolution")
    return conv2d(input, filter, list(strides), padding, data_format=data_format,
                  dilations=list(rate), name=name or "convolution")


def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC",
                            dilations=(1, 1, 1, 1), name=None) -> Symbol:
    """Each channel ``c`` of ``input`` convolved with ``filter[:, :, c, m]`` for each ``m``
    (filter ``[kh, kw, in, multiplier]``) into output channel ``c * multiplier + m``;
    ``strides`` and ``dilations`` as conv2d's."""
    data_format = _data_format(data_format)
    return create_op("conv2d", input, filter, no_bias=True,
                     stride=_spatial(strides, "strides", data_format),
                     padding=_padding(padding), data_format=data_format, filter_format="HWIM",
                     name=name or "DepthwiseConv2dNative",
                     **_dilation_attr(dilations, data_format))


def _rate(rate, dilations, strides, data_format, function) -> list:
    """depthwise_conv2d's ``rate`` (or its alias ``dilations``) as 2 ints, checked against
    ``strides``."""
    rate = dilations if rate is None else rate
    rate = _window(rate, 2, f"{function}: rate")
    _no_strides_with_rate(_spatial(strides, "strides", _data_format(data_format)), rate,
                          function)
    return list(rate)


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None, data_format=None,
                     dilations=None) -> Symbol:
    """:func:`depthwise_conv2d_native` with the filter's taps ``rate`` (2 ints) apart; a
    ``rate`` above 1 needs strides of 1.

    Returns
    -------
    Symbol
        ``[batch, h', w', in * multiplier]`` (NHWC), channel ``c * multiplier + m``.
    """
    rate = _rate(rate, dilations, strides, data_format, "depthwise_conv2d")
    return depthwise_conv2d_native(input, filter, strides, padding, data_format or "NHWC",
                                   rate, name=name or "depthwise")


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, rate=None,
                     name=None, data_format=None, dilations=None) -> Symbol:
    """:func:`depthwise_conv2d` with ``depthwise_filter`` ``[kh, kw, in, multiplier]``, then a
    1x1 conv2d with ``pointwise_filter`` ``[1, 1, in * multiplier, out]`` (VALID, stride 1)."""
    shape = array_ops._tensor(pointwise_filter).get_shape()
    if shape.ndims not in (None, 4) or (shape.ndims == 4 and any(
            d not in (None, 1) for d in shape.as_list()[:2])):
        raise ValueError(f"separable_conv2d: pointwise_filter must be [1, 1, in * multiplier, "
                         f"out], got shape {shape}")
    rate = _rate(rate, dilations, strides, data_format, "separable_conv2d")
    with current_context().name_scope(name or "separable_conv2d"):
        depthwise = depthwise_conv2d_native(input, depthwise_filter, strides, padding,
                                            data_format or "NHWC", rate, name="depthwise")
        return conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], "VALID",
                      data_format=data_format, name="pointwise")


_POOLS = {"MAX": max_pool, "AVG": avg_pool}


def pool(input, window_shape, pooling_type, padding, dilation_rate=None, strides=None,
         name=None, data_format=None, dilations=None) -> Symbol:
    """``max_pool`` (``pooling_type`` 'MAX') or ``avg_pool`` ('AVG') over 1-D or 2-D
    ``window_shape`` windows moved by ``strides``; 1-D pools the width of ``[batch, width,
    channels]`` ('NWC'; 'NCW') through an axis of size 1, as conv1d.  ``dilation_rate`` must be
    1s (TinyFlow's pools take no dilation)."""
    if pooling_type not in _POOLS:
        raise ValueError(f"pool: pooling_type must be 'MAX' or 'AVG', got {pooling_type!r}")
    n = len(window_shape)
    if n not in (1, 2):
        raise ValueError(f"pool: {n}-D windows are not supported by TinyFlow (1-D and 2-D)")
    window, strides = _window(window_shape, n, "window_shape"), _window(strides, n, "strides")
    rate = _window(dilations if dilation_rate is None else dilation_rate, n, "dilation_rate")
    _no_strides_with_rate(strides, rate, "pool")
    if max(rate) > 1:
        raise ValueError(f"pool: dilation_rate {list(rate)} is not supported by TinyFlow "
                         f"(only 1s)")
    function = _POOLS[pooling_type]
    if n == 2:
        return function(input, list(window), list(strides), padding,
                        data_format=_data_format(data_format), name=name)
    data_format = _layout_1d(data_format)
    axis = 2 if data_format == "NCHW" else 1
    with current_context().name_scope(name or pooling_type.lower() + "_pool"):
        pooled = function(array_ops.expand_dims(input, axis), [1, window[0]],
                          [1, strides[0]], padding, data_format=data_format)
        return array_ops.squeeze(pooled, [axis])
