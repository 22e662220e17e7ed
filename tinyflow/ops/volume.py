"""3-D convolution and pooling over volumes (TensorFlow's Conv3D, MaxPool3D, AvgPool3D): x is
``[batch, depth, height, width, channels]`` (data_format 'NDHWC', TF's default) or ``[batch,
channels, depth, height, width]`` ('NCDHW'), the filter ``[kd, kh, kw, in, out]`` (TF's DHWIO);
padding 'SAME' (ceil(size / stride) outputs, the odd pixel after the data) or 'VALID'.

Each op's gradient is an op of its own, linear in g, whose gradient in turn is the forward or
the other backward (as conv2d's in :mod:`.conv`), except max pooling's: its backward pools x
again to find each window's maximum (no argmax a graph could feed), and has no gradient rule.
"""
from __future__ import annotations

import math

from ..nnvm.attrs import same_as_input, shape_str
from ..nnvm.errors import ShapeError
from ..nnvm.op import register_op
from ..nnvm.symbol import create_op
from .conv import window_size

__all__: list[str] = []

_LAYOUTS = {"NDHWC": "(batch, depth, height, width, channels)",
            "NCDHW": "(batch, channels, depth, height, width)"}
_AXES = ("depth", "height", "width")


def _layout(attrs) -> str:
    layout = attrs.get("data_format") or "NDHWC"
    if layout not in _LAYOUTS:
        raise ShapeError(f"data_format must be 'NDHWC' or 'NCDHW', got {layout!r}")
    return layout


def _triple(attrs, key, default=None) -> tuple:
    """Attr ``key``: 3 positive ints (d, h, w)."""
    value = attrs.get(key, default)
    if value is None:
        raise ShapeError(f"attr {key} (d, h, w) is required")
    value = tuple(value)
    if len(value) != 3 or not all(isinstance(v, int) and v >= 1 for v in value):
        raise ShapeError(f"{key} must be 3 positive ints (d, h, w), got {value}")
    return value


def _as_ncdhw(shape, layout):
    """A 5-d shape in ``layout`` as NCDHW (None stays None); :func:`_from_ncdhw` goes back."""
    if shape is None or layout == "NCDHW":
        return shape
    return (shape[0], shape[4], *shape[1:4])


def _from_ncdhw(shape, layout):
    if layout == "NCDHW":
        return tuple(shape)
    return (shape[0], *shape[2:], shape[1])


def _check_rank(shape, what, text):
    if shape is not None and len(shape) != 5:
        raise ShapeError(f"{what} must have rank 5 {text}, got shape {shape_str(shape)}")


def _output_size(data, kernel, attrs) -> tuple:
    """The output's (d, h, w) for NCDHW ``data``; a kernel must fit the input (VALID), or be at
    most twice its size plus one (SAME pads a copy of x by kernel - 1, at most twice x)."""
    padding, stride = attrs.get("padding"), _triple(attrs, "stride", (1, 1, 1))
    if padding not in ("SAME", "VALID"):
        raise ShapeError(f"padding must be 'VALID' or 'SAME', got {padding!r}")
    for size, k, axis in zip(data[2:], kernel, _AXES):
        if k - 1 > 2 * size:
            raise ShapeError(f"the {axis} kernel {k} is more than twice the input's {axis} "
                             f"{size} plus one: not supported by TinyFlow")
    return tuple(window_size(size, k, s, padding, axis)
                 for size, k, s, axis in zip(data[2:], kernel, stride, _AXES))


def _conv3d_shape(attrs, in_shapes, out_shapes):
    layout = _layout(attrs)
    _check_rank(in_shapes[0], "input", _LAYOUTS[layout])
    _check_rank(in_shapes[1], "filter", "(kd, kh, kw, in_channels, out_channels)")
    data, weight = _as_ncdhw(in_shapes[0], layout), in_shapes[1]
    if data is None or weight is None:
        return in_shapes, out_shapes
    if min(weight[:3]) < 1:
        raise ShapeError(f"the filter {tuple(weight)} has an empty kernel")
    if weight[3] != data[1]:
        raise ShapeError(f"the filter {tuple(weight)} takes {weight[3]} input channels, the "
                         f"input {tuple(in_shapes[0])} ({layout}) has {data[1]}")
    out = (data[0], weight[4], *_output_size(data, weight[:3], attrs))
    return in_shapes, [_from_ncdhw(out, layout)]


def _backward_shape(like, forward):
    """FInferShape of a backward op: its input ``like``'s shape; g (input 0) must be what the
    forward, whose shape rule is ``forward``, gives for x (input 1) and the filter or kernel."""
    def rule(attrs, in_shapes, out_shapes):
        in_shapes, out_shapes = same_as_input(like)(attrs, in_shapes, out_shapes)
        if in_shapes[0] is None or None in in_shapes[1:]:
            return in_shapes, out_shapes
        _, (expected,) = forward(attrs, in_shapes[1:], [None])
        if tuple(in_shapes[0]) != tuple(expected):
            raise ShapeError(f"g {tuple(in_shapes[0])} must be {tuple(expected)}, the forward's "
                             f"output for x {tuple(in_shapes[1])}")
        return in_shapes, out_shapes
    return rule


def _conv_attrs(node) -> dict:
    return {key: node.attrs[key] for key in ("stride", "padding", "data_format")
            if key in node.attrs}


def _conv3d_flops(attrs, in_shapes, out_shapes):
    """FFlops: 2 x out x (in_channels x kernel) multiply-adds."""
    return 2 * math.prod(out_shapes[0]) * math.prod(in_shapes[1][:4])


(register_op("conv3d")
 .describe("3-D convolution (cross-correlation) of x with a filter (kd, kh, kw, in, out); "
           "attrs stride (sd, sh, sw), padding 'VALID' | 'SAME', data_format 'NDHWC' "
           "(default) | 'NCDHW'.")
 .set_num_inputs(2).set_attr("FInferShape", _conv3d_shape).set_attr("FFlops", _conv3d_flops)
 .set_attr("FGradient", lambda n, g: [
     create_op("_conv3d_backward_data", g[0], n.inputs[0], n.inputs[1], **_conv_attrs(n)),
     create_op("_conv3d_backward_weight", g[0], n.inputs[0], n.inputs[1], **_conv_attrs(n))]))
# d g = conv3d(h, filter) (the forward), d filter = the filter's gradient for g and input h;
# x, read for its shape, gets none
(register_op("_conv3d_backward_data")
 .describe("Gradient of conv3d's x from g, x (read for its shape) and the filter; conv3d's "
           "attrs.")
 .set_num_inputs(3).set_attr("FInferShape", _backward_shape(1, _conv3d_shape))
 .set_attr("FIgnoreInputs", [1]).set_attr("TIsBackward", True)
 .set_attr("FGradient", lambda n, g: [
     create_op("conv3d", g[0], n.inputs[2], **_conv_attrs(n)), None,
     create_op("_conv3d_backward_weight", n.inputs[0], g[0], n.inputs[2], **_conv_attrs(n))]))
# d g = conv3d(x, h), d x = x's gradient for g and the filter h; the filter gets none
(register_op("_conv3d_backward_weight")
 .describe("Gradient of conv3d's filter from g, x and the filter (read for its shape); "
           "conv3d's attrs.")
 .set_num_inputs(3).set_attr("FInferShape", _backward_shape(2, _conv3d_shape))
 .set_attr("TIsBackward", True)
 .set_attr("FGradient", lambda n, g: [
     create_op("conv3d", n.inputs[1], g[0], **_conv_attrs(n)),
     create_op("_conv3d_backward_data", n.inputs[0], n.inputs[1], g[0], **_conv_attrs(n)),
     None]))


# -- pooling -----------------------------------------------------------------------------------
def _pool3d_shape(attrs, in_shapes, out_shapes):
    layout = _layout(attrs)
    _check_rank(in_shapes[0], "input", _LAYOUTS[layout])
    kernel, data = _triple(attrs, "kernel"), _as_ncdhw(in_shapes[0], layout)
    if data is None:
        return in_shapes, out_shapes
    for size, k, axis in zip(data[2:], kernel, _AXES):
        if k > size:  # as max_pool2d: TF pads such a window (SAME), here it is refused
            raise ShapeError(f"the {axis} window {k} is larger than the input's {axis} {size} "
                             f"(input {tuple(in_shapes[0])} read as {layout})")
    return in_shapes, [_from_ncdhw((*data[:2], *_output_size(data, kernel, attrs)), layout)]


def _pool_attrs(node) -> dict:
    return {key: node.attrs[key] for key in ("kernel", "stride", "padding", "data_format")
            if key in node.attrs}


def _pool_flops(attrs, in_shapes, out_shapes):
    return math.prod(out_shapes[0]) * math.prod(attrs.get("kernel", (1, 1, 1)))


_POOL_ATTRS = ("attrs kernel (kd, kh, kw), stride (sd, sh, sw), padding 'VALID' | 'SAME', "
               "data_format 'NDHWC' (default) | 'NCDHW'")
(register_op("max_pool3d")
 .describe(f"Max over windows of x; {_POOL_ATTRS}.")
 .set_num_inputs(1).set_attr("FInferShape", _pool3d_shape).set_attr("FFlops", _pool_flops)
 .set_attr("FGradient", lambda n, g: [
     create_op("_max_pool3d_backward", g[0], n.inputs[0], **_pool_attrs(n))]))
# linear in g (a scatter to each window's maximum): its gradient gathers the head from there,
# and that gather's gradient is the scatter again (TF's MaxPoolGradGrad); x gets none
(register_op("_max_pool3d_backward")
 .describe("Gradient of max_pool3d's x from g and x: g added at each window's maximum (the "
           "first, on ties), found by pooling x again; max_pool3d's attrs.")
 .set_num_inputs(2).set_attr("FInferShape", _backward_shape(1, _pool3d_shape))
 .set_attr("TIsBackward", True)
 .set_attr("FGradient", lambda n, g: [create_op(
     "_max_pool3d_backward_backward", g[0], n.inputs[1], **_pool_attrs(n)), None]))


def _gather_shape(attrs, in_shapes, out_shapes):
    """h has x's shape; the output max_pool3d's of x."""
    h, x = in_shapes
    if h is not None and x is not None and tuple(h) != tuple(x):
        raise ShapeError(f"h {tuple(h)} must have x's shape {tuple(x)}")
    _, out_shapes = _pool3d_shape(attrs, [x if x is not None else h], out_shapes)
    return [x or h, x or h], out_shapes


(register_op("_max_pool3d_backward_backward")
 .describe("Gradient of _max_pool3d_backward's g: h (x's shape) at each window's maximum of x; "
           "max_pool3d's attrs.")
 .set_num_inputs(2).set_attr("FInferShape", _gather_shape).set_attr("TIsBackward", True)
 .set_attr("FGradient", lambda n, g: [create_op(
     "_max_pool3d_backward", g[0], n.inputs[1], **_pool_attrs(n)), None]))
(register_op("avg_pool3d")
 .describe(f"Mean over windows of x, the padding not counted; {_POOL_ATTRS}.")
 .set_num_inputs(1).set_attr("FInferShape", _pool3d_shape).set_attr("FFlops", _pool_flops)
 .set_attr("FGradient", lambda n, g: [
     create_op("_avg_pool3d_backward", g[0], n.inputs[0], **_pool_attrs(n))]))
# linear in g: its gradient is the pooling of the head; x, read for its shape, gets none
(register_op("_avg_pool3d_backward")
 .describe("Gradient of avg_pool3d's x from g and x (read for its shape); avg_pool3d's attrs.")
 .set_num_inputs(2).set_attr("FInferShape", _backward_shape(1, _pool3d_shape))
 .set_attr("FIgnoreInputs", [1]).set_attr("TIsBackward", True)
 .set_attr("FGradient", lambda n, g: [create_op("avg_pool3d", g[0], **_pool_attrs(n)), None]))
