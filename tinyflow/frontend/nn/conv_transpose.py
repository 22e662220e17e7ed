"""``tf.nn.conv2d_transpose``: the gradient of ``conv2d`` with respect to its input, as an op;
and TF's names of conv2d's two gradients, ``tf.nn.conv2d_backprop_input`` and
``tf.nn.conv2d_backprop_filter``.

TensorFlow builds the transpose from ``Conv2DBackpropInput``; TinyFlow likewise from conv2d's
input-gradient op ``_conv2d_backward_data`` given ``input_size`` (the output's height and width)
instead of conv2d's input, and the filter's gradient from ``_conv2d_backward_weight``, so no
kernel is added.  Their gradients are declared with those ops in :mod:`tinyflow.ops.conv`.
``atrous_conv2d_transpose`` is TF's composition: ``space_to_batch``, ``conv2d_backprop_input``
at stride 1 (VALID), ``batch_to_space`` cropping both paddings.
"""
from __future__ import annotations

import numbers

import numpy as np

from ...nnvm.symbol import Symbol, create_op, current_context
from ...ops.conv import window_size
from .. import array_ops
from ..array_manip_ops import batch_to_space, space_to_batch
from ..array_ops import expand_dims, squeeze
from .functions import _data_format, _padding, _spatial, _symbol

__all__ = ["atrous_conv2d_transpose", "conv1d_transpose", "conv2d_backprop_filter", "conv2d_backprop_input",
           "conv2d_transpose"]


def _entry_value(symbol: Symbol):
    """The value of a scalar or 1-D tensor known as the graph is built, else None."""
    node = symbol.outputs[0].node
    if node.kind == "constant":
        values = np.asarray(node.attrs["value"]).reshape(node.attrs["shape"])
        return [int(v) for v in values.reshape(-1)] if values.ndim else int(values)
    if node.kind == "stack" and node.attrs.get("axis", 0) == 0:
        values = [_entry_value(Symbol([entry])) for entry in node.inputs]
        return None if any(isinstance(v, list) for v in values) else values
    return None


def _output_dims(output_shape, what="conv2d_transpose: output_shape") -> list:
    """``output_shape`` (a list or tuple whose entries may be scalar tensors, or a 1-D int
    tensor) as 4 ints or None where the value is known only when the graph runs."""
    if isinstance(output_shape, Symbol):
        shape = output_shape.get_shape()
        dims = _entry_value(output_shape)
        if shape.ndims != 1 or not isinstance(dims, list):
            dims = None if shape.ndims != 1 else [None] * (shape[0].value or 0)
    else:
        dims = [None if d is None else _entry_value(d) if isinstance(d, Symbol) else d
                for d in np.asarray(output_shape, dtype=object).reshape(-1)]
    if dims is None or len(dims) != 4:
        raise ValueError(f"{what} must have shape (4,), got {output_shape!r}")
    if any(d is not None and not isinstance(d, numbers.Integral) for d in dims):
        raise ValueError(f"{what} must hold ints, got {dims}")
    return [None if d is None else int(d) for d in dims]


def _check_shapes(value, filter, dims, stride, padding, data_format):
    """TensorFlow's checks of a conv2d_transpose (nn_ops.py and Conv2DBackpropInput's shape
    function): the channels on both sides, the batch, and that conv2d of an output of
    ``dims`` gives ``value``'s height and width."""
    value_shape, filter_shape = value.get_shape(), filter.get_shape()
    if value_shape.ndims not in (None, 4) or filter_shape.ndims not in (None, 4):
        raise ValueError(f"conv2d_transpose: value {value_shape} and filter {filter_shape} "
                         f"must have rank 4")
    axis = 3 if data_format == "NHWC" else 1
    channels = (value_shape[axis].value, filter_shape[3].value)
    if None not in channels and channels[0] != channels[1]:
        raise ValueError(f"input channels does not match filter's input channels, "
                         f"{channels[0]} != {channels[1]} (value {value_shape}, filter "
                         f"{filter_shape} [height, width, output_channels, in_channels])")
    if None not in (dims[axis], filter_shape[2].value) and dims[axis] != filter_shape[2].value:
        raise ValueError(f"output_shape does not match filter's output channels, "
                         f"{dims[axis]} != {filter_shape[2].value} (output_shape {dims}, "
                         f"filter {filter_shape})")
    sizes = dims[1:3] if axis == 3 else dims[2:]
    if None in sizes:
        raise ValueError(f"conv2d_transpose: the output's height and width must be known as "
                         f"the graph is built, got output_shape {dims}")
    if None not in (dims[0], value_shape[0].value) and dims[0] != value_shape[0].value:
        raise ValueError(f"conv2d_transpose: output_shape's batch {dims[0]} is not value's "
                         f"{value_shape[0].value} (value {value_shape})")
    given = [d.value for d in (value_shape[1:3] if axis == 3 else value_shape[2:])]
    kernel = [d.value for d in filter_shape[:2]] if filter_shape.ndims else [None, None]
    for size, got, k, s, what in zip(sizes, given, kernel, stride, ("height", "width")):
        if got is None or k is None:
            continue
        computed = window_size(size, k, s, "SAME") if padding == "SAME" else (
            (size - k) // s + 1 if size >= k else 0)
        if computed != got:
            raise ValueError(
                f"conv2d_transpose: value {value_shape} does not fit output_shape {dims}: "
                f"conv2d of an output {what} {size} with filter {what} {k}, stride {s} and "
                f"padding {padding} gives {computed}, value's {what} is {got}")
    return sizes


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME",
                     data_format="NHWC", name=None, input=None, filters=None,
                     dilations=None) -> Symbol:
    """The transpose of ``conv2d`` (TensorFlow 1.15's ``tf.nn.conv2d_transpose``): the
    gradient of ``conv2d(x, filter, strides, padding)`` with respect to an ``x`` of
    ``output_shape``, given the gradient ``value`` of its output.

    Parameters
    ----------
    value : Symbol
        ``[batch, height, width, in_channels]`` (NHWC) or ``[batch, in_channels, height,
        width]`` (NCHW); ``input`` is its TF-2 name.
    filter : Symbol
        ``[height, width, output_channels, in_channels]``; ``filters`` is its TF-2 name.
    output_shape : list, tuple or Symbol
        The output's shape, 4 entries in ``data_format``: ints, or a 1-D int tensor whose value
        is known as the graph is built (``tf.stack`` of constants and ``tf.shape(x)[0]``: the
        batch, always ``value``'s, may be known only when the graph runs).
    strides : int or list
        An int, 2 ints, or 4 in the data's layout (``[1, sh, sw, 1]`` for NHWC).
    padding : {'SAME', 'VALID'}
    data_format : {'NHWC', 'NCHW'}
    dilations : optional
        Only 1s are supported.

    Returns
    -------
    Symbol
        The output, of ``output_shape``.

    Raises
    ------
    ValueError
        As TensorFlow: channels that do not match the filter's, an ``output_shape`` that is not
        4 ints, or one that conv2d with these strides and padding would not map to ``value``'s
        height and width; each message names the shapes.
    """
    value, filter = (input if value is None else value), (filters if filter is None else filter)
    if value is None or filter is None or output_shape is None or strides is None:
        raise TypeError("conv2d_transpose() needs value, filter, output_shape and strides")
    data_format, padding = _data_format(data_format), _padding(padding)
    if dilations is not None and _spatial(dilations, "dilations", data_format) != (1, 1):
        raise ValueError(f"conv2d_transpose: dilations {dilations} are not supported (only 1s)")
    value, filter = _symbol(value), _symbol(filter)
    stride = _spatial(strides, "strides", data_format)
    size = _check_shapes(value, filter, _output_dims(output_shape), stride, padding,
                         data_format)
    return create_op("_conv2d_backward_data", value, filter, input_size=tuple(size),
                     stride=stride, padding=padding, data_format=data_format,
                     filter_format="HWIO", name=name or "conv2d_transpose")


def conv1d_transpose(input=None, filters=None, output_shape=None, strides=None, padding="SAME",
                     data_format="NWC", dilations=None, name=None, value=None, filter=None,
                     stride=None) -> Symbol:
    """The transpose of ``conv1d`` (TensorFlow 1.15's ``tf.nn.conv1d_transpose``), built as
    TF builds it: :func:`conv2d_transpose` over an axis of size 1 put in front of the width.

    ``input`` ``[batch, width, in_channels]`` ('NWC') or ``[batch, in_channels, width]``
    ('NCW'); ``filters`` ``[width, output_channels, in_channels]``; ``output_shape`` 3 ints
    in ``data_format``; ``strides`` an int or 1 or 3 ints (``value``, ``filter`` and
    ``stride`` are the older spellings)."""
    input, filters = (value if input is None else input), (filter if filters is None else filters)
    strides = stride if strides is None else strides
    if input is None or filters is None or output_shape is None or strides is None:
        raise TypeError("conv1d_transpose() needs input, filters, output_shape and strides")
    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"conv1d_transpose: data_format must be 'NWC' or 'NCW', got "
                         f"{data_format!r}")
    if isinstance(output_shape, Symbol) or len(output_shape) != 3:
        raise ValueError(f"conv1d_transpose: output_shape must be 3 ints, got {output_shape!r}")
    axis = 1 if data_format == "NWC" else 2
    width = [strides] if isinstance(strides, numbers.Integral) else list(strides)
    width = width[axis] if len(width) == 3 else width[0]
    if dilations is not None and set(np.ravel(dilations).tolist()) != {1}:
        raise ValueError(f"conv1d_transpose: dilations {dilations} are not supported (only 1s)")
    shape = list(output_shape)
    window = [1, 1, width, 1] if axis == 1 else [1, 1, 1, width]
    with current_context().name_scope(name or "conv1d_transpose"):
        result = conv2d_transpose(expand_dims(_symbol(input), axis),
                                  expand_dims(_symbol(filters), 0),
                                  shape[:axis] + [1] + shape[axis:], window, padding,
                                  "NHWC" if axis == 1 else "NCHW")
        return squeeze(result, [axis])


def _no_dilations(dilations, data_format, what):
    if dilations is not None and _spatial(dilations, "dilations", data_format) != (1, 1):
        raise ValueError(f"{what}: dilations {dilations} are not supported (only 1s, as "
                         f"TensorFlow's CPU kernels)")


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None,
                          padding=None, use_cudnn_on_gpu=True, data_format="NHWC",
                          dilations=None, name=None, filters=None) -> Symbol:
    """The gradient of ``conv2d(x, filter, strides, padding)`` with respect to an ``x`` of
    shape ``input_sizes`` (4 ints, or a 1-D int tensor known as the graph is built), given
    the gradient ``out_backprop`` of its output: TensorFlow's ``Conv2DBackpropInput``, which
    :func:`conv2d_transpose` also is (its checks, its errors).  ``filter`` is
    ``[height, width, in_channels, out_channels]``; dilations must be 1s.

    Returns
    -------
    Symbol
        The input's gradient, of ``input_sizes``.
    """
    if padding is None:
        raise TypeError("conv2d_backprop_input() needs input_sizes, filter, out_backprop, "
                        "strides and padding")
    data_format = _data_format(data_format)
    _no_dilations(dilations, data_format, "conv2d_backprop_input")
    return conv2d_transpose(out_backprop, filters if filter is None else filter, input_sizes,
                            strides, padding, data_format, name or "Conv2DBackpropInput")


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                           use_cudnn_on_gpu=True, data_format="NHWC", dilations=None,
                           name=None) -> Symbol:
    """The gradient of ``conv2d(input, filter, strides, padding)`` with respect to a
    ``filter`` of shape ``filter_sizes`` (``[height, width, in_channels, out_channels]``: 4
    ints, or a 1-D int tensor known as the graph is built), given the gradient
    ``out_backprop`` of its output: TensorFlow's ``Conv2DBackpropFilter``.  Dilations must be
    1s.

    Returns
    -------
    Symbol
        The filter's gradient, of ``filter_sizes``.

    Raises
    ------
    ValueError
        When ``out_backprop`` is not the shape conv2d of ``input`` with such a filter gives,
        or the channels do not match; the message names the shapes.
    """
    data_format, padding = _data_format(data_format), _padding(padding)
    _no_dilations(dilations, data_format, "conv2d_backprop_filter")
    input, out_backprop = _symbol(input), _symbol(out_backprop)
    sizes = _output_dims(filter_sizes, "conv2d_backprop_filter: filter_sizes")
    if None in sizes or min(sizes) < 1:
        raise ValueError(f"conv2d_backprop_filter: filter_sizes must be 4 positive ints known "
                         f"as the graph is built, got {sizes}")
    stride = _spatial(strides, "strides", data_format)
    _check_filter_gradient(input, out_backprop, sizes, stride, padding, data_format)
    # the filter input is read for its shape only: zeros of filter_sizes, computed once
    return create_op("_conv2d_backward_weight", out_backprop, input,
                     array_ops.zeros(sizes, dtype=input.dtype), stride=stride, padding=padding,
                     data_format=data_format, filter_format="HWIO",
                     name=name or "Conv2DBackpropFilter")


def _check_filter_gradient(input, out_backprop, sizes, stride, padding, data_format):
    """TensorFlow's checks of Conv2DBackpropFilter: ranks 4, channels, and conv2d's output
    size for ``input`` and such a filter being ``out_backprop``'s."""
    shapes = [x.get_shape() for x in (input, out_backprop)]
    if any(shape.ndims not in (None, 4) for shape in shapes):
        raise ValueError(f"conv2d_backprop_filter: input {shapes[0]} and out_backprop "
                         f"{shapes[1]} must have rank 4")
    if any(shape.ndims is None for shape in shapes):
        return
    dims = [shape.as_list() if data_format == "NCHW" else
            [shape[0].value, shape[3].value, shape[1].value, shape[2].value] for shape in shapes]
    (batch, channels, *size), (out_batch, out_channels, *out_size) = dims
    expected = [None if n is None else window_size(n, k, s, "SAME") if padding == "SAME" else
                max((n - k) // s + 1, 0) for n, k, s in zip(size, sizes[:2], stride)]
    mismatched = [(a, b) for a, b in zip([batch, channels, sizes[3], *expected],
                                         [out_batch, sizes[2], out_channels, *out_size])
                  if None not in (a, b) and a != b]
    if mismatched:
        raise ValueError(f"conv2d_backprop_filter: out_backprop {shapes[1]} does not fit "
                         f"conv2d of input {shapes[0]} ({data_format}) with a filter "
                         f"{sizes}, strides {stride} and padding {padding}")


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None) -> Symbol:
    """TF 1.15's ``tf.nn.atrous_conv2d_transpose``: the transpose of ``atrous_conv2d`` (its
    gradient with respect to an input of ``output_shape``, NHWC, 4 ints known as the graph
    is built) given ``value``, for ``filters`` ``[kh, kw, out_channels, in_channels]`` whose
    taps are ``rate`` apart; composed as TF composes it, so its gradients are those ops'."""
    value, filters = _symbol(value), _symbol(filters)
    channels, filter_shape = value.get_shape().as_list()[3:4], filters.get_shape().as_list()
    if channels and filter_shape[3:] and None not in channels + filter_shape[3:] and \
            channels[0] != filter_shape[3]:
        raise ValueError(f"value's input channels does not match filters' input channels, "
                         f"{channels[0]} != {filter_shape[3]}")
    if not isinstance(rate, numbers.Integral) or rate < 1:
        raise ValueError(f"rate {rate!r} cannot be less than one")
    if rate == 1:
        return conv2d_transpose(value, filters, output_shape, [1, 1, 1, 1], padding, "NHWC",
                                name)
    dims = _output_dims(output_shape, "atrous_conv2d_transpose: output_shape")
    if None in dims or None in filter_shape[:3]:
        raise ValueError(f"atrous_conv2d_transpose: output_shape {output_shape} and the "
                         f"filters' shape {filters.get_shape()} must be known as the graph "
                         f"is built")
    if dims[3] != filter_shape[2]:
        raise ValueError(f"output_shape does not match filter's output channels, {dims[3]} "
                         f"!= {filter_shape[2]}")
    padding = _padding(padding)
    pads = []  # (before, after) for the height and the width: SAME as a VALID convolution
    for k in filter_shape[:2]:
        total = (k - 1) * rate if padding == "SAME" else 0
        pads.append((total // 2, total - total // 2))
    sizes = [size + sum(pad) for size, pad in zip(dims[1:3], pads)]
    extra = [(rate - size % rate) % rate for size in sizes]  # rate divides the padded sizes
    with current_context().name_scope(name or "atrous_conv2d_transpose"):
        blocks = space_to_batch(value, [[0, extra[0]], [0, extra[1]]], block_size=rate)
        input_sizes = [rate * rate * dims[0], (sizes[0] + extra[0]) // rate,
                       (sizes[1] + extra[1]) // rate, dims[3]]
        grown = conv2d_backprop_input(input_sizes, filters, blocks, [1, 1, 1, 1], "VALID")
        return batch_to_space(grown, [[pads[0][0], pads[0][1] + extra[0]],
                                      [pads[1][0], pads[1][1] + extra[1]]], block_size=rate)
