"""``tf.nn.conv3d``, ``tf.nn.max_pool3d`` and ``tf.nn.avg_pool3d``: TensorFlow 1.15's
convolution and pooling over volumes, on the ops of :mod:`tinyflow.ops.volume`;
``conv3d_transpose`` is conv3d's input-gradient op given zeros of the output's shape (read for
its shape only: no data), as conv2d_transpose is conv2d's."""
from __future__ import annotations

import numbers

import numpy as np

from ...nnvm.symbol import Symbol, create_op
from ..array_ops import zeros
from .functions import _padding, _symbol

__all__ = ["avg_pool3d", "conv3d", "conv3d_transpose", "max_pool3d"]


def _data_format(data_format) -> str:
    data_format = "NDHWC" if data_format is None else data_format
    if data_format not in ("NDHWC", "NCDHW"):
        raise ValueError(f"data_format must be 'NDHWC' or 'NCDHW', got {data_format!r}")
    return data_format


def _volume(value, what, data_format) -> tuple:
    """TensorFlow's ksize / strides / dilations: an int, 3 ints, or 5 in the data's layout
    with 1 for the batch and channels -> (d, h, w)."""
    values = [value] if isinstance(value, numbers.Integral) else list(value)
    if not all(isinstance(v, numbers.Integral) and v >= 1 for v in values) or len(
            values) not in (1, 3, 5):
        raise ValueError(f"{what} must be a positive int, 3 or 5 of them, got {value!r}")
    if len(values) == 5:
        channels_first = data_format == "NCDHW"
        if (values[0], values[1] if channels_first else values[4]) != (1, 1):
            layout = "[1, 1, d, h, w]" if channels_first else "[1, d, h, w, 1]"
            raise ValueError(f"{what} {list(values)} must be {layout} for {data_format} data: "
                             f"windows and strides over the batch or channels are not "
                             f"supported")
        values = values[2:] if channels_first else values[1:4]
    return tuple(int(v) for v in values * (3 if len(values) == 1 else 1))


def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC",
           dilations=None, name=None, filters=None) -> Symbol:
    """TensorFlow's 3-D convolution (cross-correlation) of ``input`` with ``filter``.

    Parameters
    ----------
    input : Symbol
        ``[batch, depth, height, width, channels]`` ('NDHWC', the default) or ``[batch,
        channels, depth, height, width]`` ('NCDHW').
    filter : Symbol
        ``[kd, kh, kw, in_channels, out_channels]`` (``filters``: its TF-2 name).
    strides : int or list
        An int, 3 ints, or 5 in the data's layout (``[1, sd, sh, sw, 1]`` for NDHWC).
    padding : {'VALID', 'SAME'}
        SAME gives ceil(size / stride) outputs, the odd padding pixel after the data.
    dilations : optional
        Only 1s are supported (as TensorFlow's CPU kernel).

    Returns
    -------
    Symbol
        ``[batch, d', h', w', out_channels]`` (NDHWC).
    """
    filter = filters if filter is None else filter
    if input is None or filter is None or strides is None or padding is None:
        raise TypeError("conv3d() needs input, filter, strides and padding")
    data_format = _data_format(data_format)
    if dilations is not None and _volume(dilations, "dilations", data_format) != (1, 1, 1):
        raise ValueError(f"conv3d: dilations {dilations} are not supported (only 1s)")
    return create_op("conv3d", _symbol(input), _symbol(filter),
                     stride=_volume(strides, "strides", data_format), padding=_padding(padding),
                     data_format=data_format, name=name or "Conv3D")


def conv3d_transpose(value, filter=None, output_shape=None, strides=None, padding="SAME",
                     data_format="NDHWC", name=None, input=None, filters=None,
                     dilations=None) -> Symbol:
    """TF 1.15's ``tf.nn.conv3d_transpose``: the gradient of ``conv3d(x, filter, strides,
    padding)`` with respect to an ``x`` of ``output_shape`` (5 ints known as the graph is
    built, in ``data_format``), given the gradient ``value`` of its output; ``filter`` is
    ``[kd, kh, kw, output_channels, in_channels]``.  Shapes conv3d would not map onto
    ``value``'s are a ValueError naming them."""
    value, filter = (input if value is None else value), (filters if filter is None else filter)
    if value is None or filter is None or output_shape is None or strides is None:
        raise TypeError("conv3d_transpose() needs value, filter, output_shape and strides")
    data_format = _data_format(data_format)
    if dilations is not None and _volume(dilations, "dilations", data_format) != (1, 1, 1):
        raise ValueError(f"conv3d_transpose: dilations {dilations} are not supported (only 1s)")
    sizes = np.asarray(output_shape).reshape(-1) if not isinstance(output_shape, Symbol) else []
    if len(sizes) != 5 or not all(isinstance(v, (int, np.integer)) for v in sizes.tolist()):
        raise ValueError(f"conv3d_transpose: output_shape must be 5 ints known as the graph is "
                         f"built, got {output_shape!r}")
    value, filter = _symbol(value), _symbol(filter)
    like = zeros([int(v) for v in sizes], dtype=value.dtype)  # read for its shape only
    return create_op("_conv3d_backward_data", value, like, filter,
                     stride=_volume(strides, "strides", data_format), padding=_padding(padding),
                     data_format=data_format, name=name or "conv3d_transpose")


def _pool3d(op, default_name, input, ksize, strides, padding, data_format, name) -> Symbol:
    if input is None or ksize is None or strides is None or padding is None:
        raise TypeError(f"{op}() needs input, ksize, strides and padding")
    data_format = _data_format(data_format)
    return create_op(op, _symbol(input), kernel=_volume(ksize, "ksize", data_format),
                     stride=_volume(strides, "strides", data_format), padding=_padding(padding),
                     data_format=data_format, name=name or default_name)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None) -> Symbol:
    """Max over ``ksize`` windows of a volume moved by ``strides`` (each an int, 3 ints, or 5
    in the data's layout); ``padding`` 'SAME' or 'VALID'; ``data_format`` 'NDHWC' (default)
    or 'NCDHW'.  The gradient goes to each window's maximum."""
    return _pool3d("max_pool3d", "MaxPool3D", input, ksize, strides, padding, data_format, name)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None) -> Symbol:
    """Mean over ``ksize`` windows of a volume, SAME padding not counted (as TensorFlow); the
    arguments as :func:`max_pool3d`'s."""
    return _pool3d("avg_pool3d", "AvgPool3D", input, ksize, strides, padding, data_format, name)
