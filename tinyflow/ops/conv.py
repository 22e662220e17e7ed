"""Layer ops: linear, conv2d, pooling, batch_norm, flatten, dropout, softmax cross-entropy.

Bodies: ``tinyflow/lua_ops/conv/<name>.lua``.  Windowed ops (conv2d, pooling) take
``kernel=(kh, kw)``, ``stride=(sh, sw)`` and ``padding="VALID" | "SAME"`` with TensorFlow's
rule: SAME gives ``ceil(size / stride)`` outputs and puts an odd padding pixel after the data.
Their backward ops recover the padding from the input and gradient shapes, so they only need the
kernel and stride.  ``data_format`` is ``"NCHW"`` (the seed's layout, the default) or
``"NHWC"`` (TensorFlow's); conv2d's ``filter_format`` is ``"OIHW"`` (default) or ``"HWIO"``
(TensorFlow's ``[kh, kw, in, out]``) or ``"HWIM"`` (TensorFlow's depthwise filter ``[kh, kw, in,
multiplier]``: each input channel convolved alone with its ``multiplier`` filters, output channel
``c * multiplier + m``, torch's ``groups = in``).  conv2d's ``dilation=(dh, dw)`` spreads the
kernel's taps (TensorFlow's dilations, atrous ``rate``): it covers ``(k - 1) * d + 1`` pixels.  The
shape rules work in NCHW / OIHW and translate; the bodies see NHWC tensors as NCHW views with
channels-last strides (``kernels.nchw_view``) and filters as OIHW views, so nothing is
transposed.

Weights, biases, gamma and beta left out of a call are created as variables
``<node name>_<input name>`` (``FListInputNames``).  ``FSetInputVarAttrOnCompose`` declares each
as a default :class:`~tinyflow.nnvm.variables.Variable` with initial value
``_variable_init(method=...)``: Glorot-uniform weights, zero biases and beta, unit gamma.
``_variable_init`` has no inputs; its shape is the variable's, inferred backward through the
``assign`` that initialises it, so the initialiser runs once the variable's shape is known, and
only when nothing assigned the variable first (see :class:`~tinyflow.nnvm.variables.Initializer`).
"""
from __future__ import annotations

import math

from ..nnvm.attrs import no_gradient, same_as_input, shape_str
from ..nnvm.errors import GraphError, ShapeError
from ..nnvm.op import Op, register_op
from ..nnvm.symbol import Symbol, create_op, current_context
from ..nnvm.variables import Variable
from .matrix import register_view_op

__all__ = ["INIT_METHODS", "window_size"]

INIT_METHODS = ("zeros", "ones", "xavier_uniform", "normal")
_LAYER_INPUTS = ("data", "weight", "bias")
_BN_INPUTS = ("data", "gamma", "beta")


# -- auto-created variables ------------------------------------------------------------------
def _initialise_inputs(input_names, **methods):
    """FSetInputVarAttrOnCompose declaring an auto-created input variable as a default
    :class:`~tinyflow.nnvm.variables.Variable` of the current graph context, with initial value
    ``_variable_init(method=methods[its input name])``."""
    def on_compose(attrs, var, index):
        method = methods[input_names[index]]
        # a random method takes seeds as a random op (reproducible under tf.set_random_seed)
        random = method in ("normal", "xavier_uniform")
        seed, seed2 = current_context().op_seeds(None) if random else (None, None)
        with var.graph.name_scope(var.name + "/"):  # "<variable>/Initializer", as TF
            init = create_op("_variable_init", method=method, seed=seed, seed2=seed2,
                             name="Initializer")
        Variable.for_node(var, init, default=True)
    return on_compose


def _variable_init_shape(attrs, in_shapes, out_shapes):
    if attrs.get("method", "zeros") not in INIT_METHODS:
        raise ShapeError(f"method must be one of {INIT_METHODS}, got {attrs.get('method')!r}")
    return in_shapes, out_shapes  # the shape comes backward, from the variable assigned


(register_op("_variable_init")
 .describe("Initial value of the variable it is assigned to; the shape is that variable's.  "
           "method: zeros, ones, normal (attr stdev, default 0.01) or xavier_uniform "
           "(U(-a, a), a = sqrt(6 / (fan_in + fan_out)), fans from the shape as in PyTorch); "
           "attrs seed, seed2 as the random ops' (tinyflow/frontend/random_ops.py).")
 .set_num_inputs(0).set_attr("FInferShape", _variable_init_shape)
 .set_attr("FGradient", no_gradient).set_attr("TRandom", True))


# -- helpers -----------------------------------------------------------------------------------
def _check_rank(shape, rank, layout, what="input", hint=""):
    if shape is not None and len(shape) != rank:
        raise ShapeError(f"{what} must have rank {rank} {layout}, got shape {shape_str(shape)}"
                         + hint)


def window_size(size: int, kernel: int, stride: int, padding: str, axis: str = "") -> int:
    """Output size of a window op along one axis (TensorFlow's VALID / SAME rule)."""
    if padding == "SAME":
        return -(-size // stride)
    if padding != "VALID":
        raise ShapeError(f"padding must be 'VALID' or 'SAME', got {padding!r}")
    if size < kernel:
        raise ShapeError(f"the {axis} kernel {kernel} is larger than the input's {axis} "
                         f"{size} (padding 'VALID')")
    return (size - kernel) // stride + 1


_LAYOUT_TEXT = {"NCHW": "(batch, channels, height, width)",
                "NHWC": "(batch, height, width, channels)"}
_FILTER_TEXT = {"OIHW": "(num_filter, in_channels, kh, kw)",
                "HWIO": "(kh, kw, in_channels, out_channels)",
                "HWIM": "(kh, kw, in_channels, channel_multiplier)"}


_FORMATS = {"data_format": _LAYOUT_TEXT, "filter_format": _FILTER_TEXT}


def _layout(attrs, key="data_format", default="NCHW"):
    value = attrs.get(key) or default
    if value not in _FORMATS[key]:
        raise ShapeError(f"{key} must be one of {sorted(_FORMATS[key])}, got {value!r}")
    return value


def _as_nchw(shape, data_format):
    """A 4-d shape in ``data_format`` as NCHW; :func:`_from_nchw` goes back."""
    if shape is None or data_format == "NCHW":
        return shape
    return (shape[0], shape[3], shape[1], shape[2])


def _from_nchw(shape, data_format):
    if shape is None or data_format == "NCHW":
        return shape
    return (shape[0], shape[2], shape[3], shape[1])


def _as_oihw(shape, filter_format):
    """A filter shape in ``filter_format`` as OIHW (a depthwise one: in x multiplier filters of
    one channel each); :func:`_filter_shape` goes back."""
    if shape is None or filter_format == "OIHW":
        return shape
    if filter_format == "HWIM":
        return (None if None in shape[2:] else shape[2] * shape[3], 1, shape[0], shape[1])
    return (shape[3], shape[2], shape[0], shape[1])


def _filter_shape(num_filter, channels, kernel, filter_format):
    """The filter in ``filter_format`` taking ``channels`` input channels to ``num_filter``."""
    if filter_format == "HWIM":
        return (*kernel, channels, num_filter // channels)
    if filter_format == "HWIO":
        return (*kernel, channels, num_filter)
    return (num_filter, channels, *kernel)


def _filter_channels(shape, filter_format):
    """The input channels a filter of ``shape`` takes (all of them for a depthwise one)."""
    return shape[2] if filter_format in ("HWIM", "HWIO") else shape[1]


def _data_layout(attrs):
    """FDataLayout of the convolutions and pooling: their data_format, NCHW by default."""
    return attrs.get("data_format") or "NCHW"


def _layout_attrs(node):
    """The layout attributes (and a convolution's dilation) a backward op takes from its
    forward node."""
    return {key: node.attrs[key] for key in ("data_format", "filter_format", "dilation")
            if node.attrs.get(key) is not None}


def _dilation(attrs):
    dilation = tuple(attrs.get("dilation") or (1, 1))
    if len(dilation) != 2 or not all(isinstance(d, int) and d >= 1 for d in dilation):
        raise ShapeError(f"dilation must be 2 positive ints (dh, dw), got {dilation}")
    return dilation


def _output_hw(data, kernel, attrs):
    stride = tuple(attrs.get("stride", (1, 1)))
    padding = attrs.get("padding", "VALID")
    return tuple(window_size(size, k, s, padding, axis) for size, k, s, axis in
                 zip(data[2:], _extent(data, kernel, attrs), stride, ("height", "width")))


def _extent(data, kernel, attrs):
    """The pixels a (dilated) kernel covers along each axis, (k - 1) * dilation + 1: at most
    twice x's (NCHW ``data``) size where dilated, as SAME pads a copy of x by that much (a
    graph's dilation of 10**9: a buffer past memory, in the gradients' bodies too)."""
    extent = tuple((k - 1) * d + 1 for k, d in zip(kernel, _dilation(attrs)))
    for size, pixels, axis in zip(data[2:], extent, ("height", "width")):
        if pixels > 2 * size and _dilation(attrs) != (1, 1):
            raise ShapeError(f"the dilated kernel covers {pixels} pixels, more than twice the "
                             f"input's {axis} {size}: not supported by TinyFlow")
    return extent


def _backward_op(name, doc, num_inputs, shape_rule, num_outputs=1):
    return (register_op(name).describe(doc).set_num_inputs(num_inputs)
            .set_num_outputs(num_outputs).set_attr("FInferShape", shape_rule)
            .set_attr("TIsBackward", True))


def _num_inputs_with_bias(attrs):
    return 2 if attrs.get("no_bias", True) else 3


# -- linear ------------------------------------------------------------------------------------
def _linear_shape(attrs, in_shapes, out_shapes):
    data, weight = in_shapes[0], in_shapes[1]
    out = out_shapes[0]
    _check_rank(data, 2, "(batch, features)", hint="; use flatten_layer first")
    _check_rank(weight, 2, "(num_hidden, in_features)", "weight")
    num_hidden = attrs.get("num_hidden") or (weight[0] if weight is not None else None)
    if data is None and out is not None and weight is not None:
        data = (out[0], weight[1])
    if data is None or num_hidden is None:
        return [data] + list(in_shapes[1:]), out_shapes
    expected = [data, (num_hidden, data[1]), (num_hidden,)][:len(in_shapes)]
    for what, got, want in zip(("weight", "bias"), in_shapes[1:], expected[1:]):
        if got is not None and tuple(got) != want:
            raise ShapeError(f"{what} must be {want} for input {data} and num_hidden "
                             f"{num_hidden}, got {tuple(got)}")
    return expected, [(data[0], num_hidden)]


def _linear_grad(node, grads):
    g, (data, weight) = grads[0], node.inputs[:2]
    result = [create_op("matmul", g, weight), create_op("matmul", g, data, transpose_a=True)]
    if len(node.inputs) == 3:
        result.append(create_op("reduce_sum", g, axis=(0,)))
    return result


def _layer_op(name, doc, shape_rule, gradient):
    """Register a layer taking data, weight and (unless no_bias) bias; a weight or bias left
    out of a call becomes a default variable (Glorot-uniform weight, zero bias).  Its
    activation and bias fuse into ``_fused_<name>`` (FuseConvActivation)."""
    return (register_op(name).describe(doc)
            .set_num_inputs(_num_inputs_with_bias)
            .set_attr("FListInputNames", lambda attrs: list(_LAYER_INPUTS))
            .set_attr("FSetInputVarAttrOnCompose", _initialise_inputs(
                _LAYER_INPUTS, weight="xavier_uniform", bias="zeros"))
            .set_attr("FInferShape", shape_rule).set_attr("FGradient", gradient)
            .set_attr("TFusedWithActivation", f"_fused_{name}"))


def _per_weight_flops(attrs, in_shapes, out_shapes):
    """FFlops of conv2d and linear: 2 x out x (in channels x kernel), the weight's size over
    its first axis."""
    if len(in_shapes) < 2:
        return None
    weight = in_shapes[1]
    if len(weight) == 4:
        weight = _as_oihw(weight, attrs.get("filter_format") or "OIHW")
    return 2 * sum(math.prod(s) for s in out_shapes) * (math.prod(weight) // max(weight[0], 1))


_layer_op("linear", "Fully connected layer: y = x @ weight^T (+ bias).  x (batch, in_features), "
          "weight (num_hidden, in_features), bias (num_hidden,); attrs num_hidden, no_bias "
          "(default True).", _linear_shape, _linear_grad).set_attr("FFlops", _per_weight_flops)


# -- conv2d ------------------------------------------------------------------------------------
def _conv2d_shape(attrs, in_shapes, out_shapes):
    data_format, filter_format = _layout(attrs), _layout(attrs, "filter_format", "OIHW")
    _check_rank(in_shapes[0], 4, _LAYOUT_TEXT[data_format], hint=f" ({data_format})")
    _check_rank(in_shapes[1], 4, _FILTER_TEXT[filter_format], "weight")
    data, weight = _as_nchw(in_shapes[0], data_format), _as_oihw(in_shapes[1], filter_format)
    num_filter = attrs.get("num_filter") or (weight[0] if weight is not None else None)
    kernel = attrs.get("kernel") or (weight[2:] if weight is not None else None)
    if data is None or num_filter is None or kernel is None:
        return in_shapes, out_shapes
    if filter_format == "HWIM" and in_shapes[1] is not None and in_shapes[1][2] != data[1]:
        raise ShapeError(f"the depthwise filter {tuple(in_shapes[1])} (HWIM) takes "
                         f"{in_shapes[1][2]} input channels, the input {tuple(in_shapes[0])} "
                         f"({data_format}) has {data[1]}")
    expected = [in_shapes[0], _filter_shape(num_filter, data[1], kernel, filter_format),
                (num_filter,)][:len(in_shapes)]
    for what, got, want in zip(("weight", "bias"), in_shapes[1:], expected[1:]):
        if got is not None and tuple(got) != want:
            raise ShapeError(f"{what} must be {want} for input {tuple(in_shapes[0])} "
                             f"({data_format}, {data[1]} channels), num_filter {num_filter} "
                             f"and kernel {tuple(kernel)} ({filter_format}), got {tuple(got)}")
    out = (data[0], num_filter, *_output_hw(data, kernel, attrs))
    return expected, [_from_nchw(out, data_format)]


def _conv2d_grad(node, grads):
    g, (data, weight) = grads[0], node.inputs[:2]
    attrs = {"stride": node.attrs.get("stride", (1, 1)), **_layout_attrs(node)}
    padding = node.attrs.get("padding", "VALID")
    result = [create_op("_conv2d_backward_data", g, data, weight, padding=padding, **attrs),
              create_op("_conv2d_backward_weight", g, data, weight, padding=padding, **attrs)]
    if len(node.inputs) == 3:
        channels_last = node.attrs.get("data_format") == "NHWC"
        result.append(create_op("reduce_sum", g, axis=(0, 1, 2) if channels_last else (0, 2, 3)))
    return result


# TChannelsLast "prefer": oneDNN's convolutions and pooling run several times faster on
# channels-last tensors, and take either (their gradients too)
(_layer_op("conv2d", "2-D convolution (cross-correlation) of x with weight (num_filter, "
           "in_channels, kh, kw), plus bias (num_filter,) unless no_bias (default True).  attrs "
           "num_filter, kernel (kh, kw), stride (sh, sw), dilation (dh, dw) (default 1s), "
           "padding 'VALID' | 'SAME', data_format 'NCHW' (default) | 'NHWC', filter_format "
           "'OIHW' (default) | 'HWIO' | 'HWIM' (depthwise: [kh, kw, in, multiplier]).",
           _conv2d_shape, _conv2d_grad)
 .set_attr("FFlops", _per_weight_flops).set_attr("TChannelsLast", "prefer")
 .set_attr("FDataLayout", _data_layout))


# -- conv2d + bias + activation in one op (the FuseConvActivation pass builds it) ---------------
def _activation_backward(activation):
    """The backward op of an activation (TActivation) the fused ops apply, or None."""
    activations = {op.name: backward for op, backward in Op.get_attr("TActivation").items()}
    return activations.get(activation), sorted(activations)


def _fused_op(name, layer, shape_rule, gradient):
    """Register ``_fused_<layer>``: act(layer(x, weight) + bias), whose gradient is the
    activation's from y, then the layer's."""
    def fused_shape(attrs, in_shapes, out_shapes):
        backward, known = _activation_backward(attrs.get("activation"))
        if backward is None:
            raise ShapeError(f"activation must be one of {known}, got "
                             f"{attrs.get('activation')!r}")
        return shape_rule(attrs, in_shapes, out_shapes)

    def fused_grad(node, grads):
        backward, _ = _activation_backward(node.attrs["activation"])
        return gradient(node, [create_op(backward, grads[0], node.outputs[0])])
    return (register_op(name)
     .describe(f"act({layer}(x, weight) + bias) in one kernel (oneDNN's post-op on the CPU): "
               f"attr activation 'tanh' | 'relu' | 'sigmoid' and {layer}'s attrs.  The "
               f"FuseConvActivation pass (tinyflow/nnvm/optimizations/fuse_conv.py) puts it "
               f"where an activation alone reads a {layer}.")
     .set_num_inputs(_num_inputs_with_bias)
     .set_attr("FInferShape", fused_shape).set_attr("FGradient", fused_grad)
     .set_attr("TInternal", "FuseConvActivation"))


(_fused_op("_fused_conv2d", "conv2d", _conv2d_shape, _conv2d_grad)
 .set_attr("TChannelsLast", "prefer"))
_fused_op("_fused_linear", "linear", _linear_shape, _linear_grad)


# -- conv2d's input gradient, which is also conv2d_transpose ------------------------------------
def _conv2d_backward_data_shape(attrs, in_shapes, out_shapes):
    data_format, filter_format = _layout(attrs), _layout(attrs, "filter_format", "OIHW")
    g, weight = _as_nchw(in_shapes[0], data_format), _as_oihw(in_shapes[-1], filter_format)
    if len(in_shapes) == 3:  # conv2d's x, read for its shape only
        in_shapes, out_shapes = same_as_input(1)(attrs, in_shapes, out_shapes)
    elif g is not None and weight is not None:
        out_shapes = [_from_nchw((g[0], weight[1], *attrs["input_size"]), data_format)]
    data = _as_nchw(out_shapes[0], data_format)
    if weight is not None and data is not None:
        _extent(data, weight[2:], attrs)
    if g is None or weight is None or data is None or "padding" not in attrs:
        return in_shapes, out_shapes
    expected = (data[0], weight[0], *_output_hw(data, weight[2:], attrs))
    if tuple(g) != expected or data[1] != _filter_channels(in_shapes[-1], filter_format):
        raise ShapeError(
            f"g {tuple(in_shapes[0])} does not fit conv2d's output for an input "
            f"{tuple(out_shapes[0])} ({data_format}) and a filter {tuple(in_shapes[-1])} "
            f"({filter_format}), stride {tuple(attrs.get('stride', (1, 1)))}, dilation "
            f"{_dilation(attrs)} and padding "
            f"{attrs['padding']!r}: it must be {_from_nchw(expected, data_format)}, and the "
            f"filter's in_channels the input's {data[1]}")
    return in_shapes, out_shapes


def _implied_padding(node):
    """The padding of the conv2d (or pooling) whose gradient ``node`` computes: its attr
    padding, else from the static shapes of g and x: either rule that gives g's size from x's
    pads alike (the bodies take the padding from the sizes)."""
    if node.attrs.get("padding") is not None:
        return node.attrs["padding"]
    data_format = node.attrs.get("data_format") or "NCHW"
    shapes = [symbol.get_shape() for symbol in node.inputs[:3]]
    g, data, weight = [None if s.ndims != 4 else tuple(s.as_list()) for s in shapes + [
        shapes[0]]][:3]  # pooling has no weight (its kernel is an attr)
    kernel = node.attrs.get("kernel") or (None if weight is None else _as_oihw(
        weight, node.attrs.get("filter_format") or "OIHW")[2:])
    if g is not None and data is not None and kernel is not None:
        g, data = _as_nchw(g, data_format), _as_nchw(data, data_format)
        for padding in ("SAME", "VALID"):
            attrs = {"stride": node.attrs.get("stride", (1, 1)), "padding": padding,
                     "dilation": node.attrs.get("dilation")}
            if None not in (*g[2:], *data[2:], *kernel) and all(
                    size >= k for size, k in zip(data[2:], _extent(data, kernel, attrs))) and tuple(
                    g[2:]) == _output_hw(data, kernel, attrs):
                return padding
    raise GraphError(f"{node.node.describe()}: its gradient needs attr padding, or the static "
                     f"shapes of g {g} and x {data} (as NCHW) that imply it")


def _conv2d_backward_data_grad(node, grads):
    """y = conv2d's input gradient from g is linear in g and in the weight:
    d g = conv2d(dy, weight) (the forward), d weight = conv2d's weight gradient for the
    output gradient g and the input dy; x, read for its shape, gets none."""
    g, weight, head = node.inputs[0], node.inputs[-1], grads[0]
    attrs = {"stride": node.attrs.get("stride", (1, 1)), **_layout_attrs(node)}
    padding = _implied_padding(node)
    grad_g = create_op("conv2d", head, weight, no_bias=True, padding=padding, **attrs)
    grad_weight = create_op("_conv2d_backward_weight", g, head, weight, **attrs)
    return [grad_g, grad_weight] if len(node.inputs) == 2 else [grad_g, None, grad_weight]


def _transposed_flops(attrs, in_shapes, out_shapes):
    """FFlops of a transposed convolution: 2 x in x (out channels x kernel)."""
    if len(in_shapes) < 2:
        return None
    weight = in_shapes[1]
    return 2 * math.prod(in_shapes[0]) * (math.prod(weight) // max(weight[0], 1))


# Data and weight gradients are separate ops: the data gradient of a first layer is never
# needed, and the executor only runs the ops a fetch reaches.  Without x (attr input_size
# instead) the data gradient is conv2d_transpose (tinyflow/conv_transpose.py).
(register_op("_conv2d_backward_data")
 .describe("Gradient of conv2d's input from g, x (read for its shape) and weight; or, with attr "
           "input_size (h, w), from g and weight alone (conv2d_transpose).  Attrs stride, "
           "dilation, padding (checked when given; needed for the gradient unless the static "
           "shapes imply it), data_format, filter_format.")
 .set_num_inputs(lambda attrs: 2 if "input_size" in attrs else 3)
 .set_attr("FIgnoreInputs", lambda attrs: [] if "input_size" in attrs else [1])
 .set_attr("FInferShape", _conv2d_backward_data_shape)
 .set_attr("FGradient", _conv2d_backward_data_grad).set_attr("TIsBackward", True)
 .set_attr("FFlops", _transposed_flops).set_attr("TChannelsLast", "prefer")
 .set_attr("FDataLayout", _data_layout))


def _conv2d_backward_weight_shape(attrs, in_shapes, out_shapes):
    """The weight's shape; the dilated kernel fits x as conv2d's does (a document's may not)."""
    data = _as_nchw(in_shapes[1], _layout(attrs))
    weight = _as_oihw(in_shapes[2], _layout(attrs, "filter_format", "OIHW"))
    if data is not None and weight is not None:
        _extent(data, weight[2:], attrs)
    return same_as_input(2)(attrs, in_shapes, out_shapes)


def _conv2d_backward_weight_grad(node, grads):
    """y = conv2d's weight gradient is linear in g and in x (TF's Conv2DBackpropFilter
    gradient): d g = conv2d(x, dy), d x = conv2d's input gradient for g and the weight dy; the
    weight, read for its shape, gets none."""
    (g, data, _), head = node.inputs, grads[0]
    attrs = {"stride": node.attrs.get("stride", (1, 1)), "padding": _implied_padding(node),
             **_layout_attrs(node)}
    return [create_op("conv2d", data, head, no_bias=True, **attrs),
            create_op("_conv2d_backward_data", g, data, head, **attrs), None]


(_backward_op("_conv2d_backward_weight", "Gradient of conv2d's weight from g, x and weight; "
              "attrs stride, dilation, padding (needed for its gradient unless the static "
              "shapes imply it), data_format, filter_format.", 3, _conv2d_backward_weight_shape)
 .set_attr("TChannelsLast", "prefer").set_attr("FGradient", _conv2d_backward_weight_grad))


# -- pooling -----------------------------------------------------------------------------------
def _pool_shape(attrs, in_shapes, out_shapes):
    data_format = _layout(attrs)
    _check_rank(in_shapes[0], 4, _LAYOUT_TEXT[data_format], hint=f" ({data_format})")
    if "kernel" not in attrs:
        raise ShapeError("attr kernel (kh, kw) is required")
    data = _as_nchw(in_shapes[0], data_format)
    if data is None:
        return in_shapes, out_shapes
    _windows_fit(attrs["kernel"], in_shapes[0], data_format)
    out = (*data[:2], *_output_hw(data, attrs["kernel"], attrs))
    return in_shapes, [_from_nchw(out, data_format)]


def _windows_fit(kernel, shape, data_format):
    """ShapeError unless windows of ``kernel`` fit the pixels of the input of ``shape``."""
    for size, k, axis in zip(_as_nchw(shape, data_format)[2:], kernel, ("height", "width")):
        if k > size:  # TF pads such a window (SAME); here it means the layout is wrong
            raise ShapeError(f"the {axis} window {k} is larger than the input's {axis} {size} "
                             f"(input {tuple(shape)} read as {data_format})")


def _pool_backward_shape(like, data):
    """FInferShape of a pooling's gradient: input ``like``'s shape; input ``data``, of x's
    shape, fits the windows of attr kernel as the forward's x does (a document's may not)."""
    def rule(attrs, in_shapes, out_shapes):
        in_shapes, out_shapes = same_as_input(like)(attrs, in_shapes, out_shapes)
        if in_shapes[data] is not None and len(in_shapes[data]) == 4 and "kernel" in attrs:
            _windows_fit(attrs["kernel"], in_shapes[data], _layout(attrs))
        return in_shapes, out_shapes
    return rule


def _max_pool_outputs(attrs):
    return 2 if attrs.get("argmax", True) else 1


def _max_pool_shape(attrs, in_shapes, out_shapes):
    in_shapes, (out,) = _pool_shape(attrs, in_shapes, out_shapes[:1])
    return in_shapes, [out, out][:_max_pool_outputs(attrs)]


def _max_pool_type(attrs, in_types, out_types):
    dtype = in_types[0] or out_types[0]
    return [dtype], [dtype, "int64"][:_max_pool_outputs(attrs)]


def _pool_attrs(node, forward=False):
    """The attributes a pooling's gradient op takes from the node before it (the padding: a
    forward's, VALID by default; a backward op's where it has one)."""
    attrs = {"kernel": node.attrs["kernel"], "stride": node.attrs.get("stride", (1, 1)),
             **_layout_attrs(node)}
    if forward or "padding" in node.attrs:
        attrs["padding"] = node.attrs.get("padding", "VALID")
    return attrs


def _pool_flops(attrs, in_shapes, out_shapes):
    """FFlops of pooling: each window counted once per output element."""
    return sum(math.prod(s) for s in out_shapes) * math.prod(attrs.get("kernel", (1, 1)))


def _max_pool_backward_type(attrs, in_types, out_types):
    dtype = in_types[0] or in_types[1] or out_types[0]
    return [dtype, dtype, "int64"], [dtype]


# max_pool2d keeps the argmax of each window as a second, hidden output (int64): the backward
# scatters g through it instead of pooling x again, and reads x only for its shape.  With
# argmax=False (the PruneArgmax pass, when nothing reads it) there is no second output
# (TArgmaxOutput).
(register_op("max_pool2d")
 .describe("Max over kernel (kh, kw) windows of x moved by stride (sh, sw); padding 'VALID' | "
           "'SAME', data_format 'NCHW' (default) | 'NHWC'.  A hidden second output holds each "
           "window's argmax (int64), unless attr argmax is False.")
 .set_num_inputs(1).set_num_outputs(_max_pool_outputs)
 .set_attr("FNumVisibleOutputs", lambda attrs: 1)
 .set_attr("FInferShape", _max_pool_shape).set_attr("FInferType", _max_pool_type)
 .set_attr("FGradient", lambda n, g: [create_op(
     "_max_pool2d_backward", g[0], n.inputs[0], n.outputs[1], **_pool_attrs(n, True))])
 .set_attr("TArgmaxOutput", 1).set_attr("FFlops", _pool_flops)
 .set_attr("TChannelsLast", "prefer").set_attr("FDataLayout", _data_layout))
_backward_op("_max_pool2d_backward", "Gradient of max_pool2d's input from g, x (for its shape) "
             "and max_pool2d's argmax output; attrs kernel, stride, padding, data_format.", 3,
             _pool_backward_shape(1, 1))


def _pool_of(argmax):
    """The max pool whose argmax output the NodeEntry ``argmax`` is, else None."""
    pool = argmax.node
    return pool if pool.op is not None and pool.op.attr("TArgmaxOutput") == argmax.index \
        else None


def _argmax_of_its_pool(node):
    """FCheckNode: the argmax (input 2) is that of a max pool of input 1 with the same window:
    torch's kernel writes through each index unchecked, outside the plane for any other."""
    pool = _pool_of(node.inputs[2])
    if pool is None or pool.inputs[:1] != [node.inputs[1]]:
        return f"input 2 of {node.name!r} (the argmax) must be the argmax output of a max " \
               f"pool of its input 1"
    window = [(tuple(n.attrs.get("kernel", ())), tuple(n.attrs.get("stride", (1, 1))),
               n.attrs.get("data_format") or "NCHW") for n in (pool, node)]
    if window[0] != window[1]:  # (the padding follows from the shapes)
        return f"the window of {node.name!r} must be its max pool's, {window[0]}"
    return None


# linear in g (a scatter through the argmax): its gradient gathers h through the same argmax
(Op.get("_max_pool2d_backward").set_attr("FInferType", _max_pool_backward_type)
 .set_attr("FCheckNode", _argmax_of_its_pool)
 .set_attr("FIgnoreInputs", [1]).set_attr("TChannelsLast", "prefer")
 .set_attr("FGradient", lambda n, g: [create_op(
     "_max_pool2d_backward_backward", g[0], n.inputs[2], **_pool_attrs(n)), None, None]))


def _gather_argmax_type(attrs, in_types, out_types):
    dtype = in_types[0] or out_types[0]
    return [dtype, "int64"], [dtype]


# TensorFlow's MaxPoolGradGrad: the gradient of max pooling's gradient is max pooling of the
# head through the forward's argmax; its own gradient is the scatter again
(_backward_op("_max_pool2d_backward_backward", "Gradient of _max_pool2d_backward's g: h (of "
              "max_pool2d's input shape) at each window's argmax (input 2, max_pool2d's second "
              "output); attrs kernel, stride, data_format.", 2, _pool_backward_shape(1, 0))
 .set_attr("FInferType", _gather_argmax_type)
 .set_attr("FGradient", lambda n, g: [create_op(
     "_max_pool2d_backward", g[0], _pool_input(n), n.inputs[1], **_pool_attrs(n)), None]))


def _pool_input(node):
    """The input of the max pool whose argmax a _max_pool2d_backward_backward node reads (its
    own input 0, h, where that argmax is no pool's): what _argmax_of_its_pool asks for."""
    pool = _pool_of(node.inputs[1].outputs[0])
    return node.inputs[0] if pool is None else Symbol(pool.inputs[:1])


(register_op("avg_pool2d")
 .describe("Mean (padding not counted) over kernel (kh, kw) windows of x moved by stride "
           "(sh, sw); padding 'VALID' | 'SAME', data_format 'NCHW' (default) | 'NHWC'.")
 .set_num_inputs(1).set_attr("FInferShape", _pool_shape)
 .set_attr("FGradient", lambda n, g: [create_op(
     "_avg_pool2d_backward", g[0], n.inputs[0], **_pool_attrs(n, True))])
 .set_attr("FFlops", _pool_flops).set_attr("FDataLayout", _data_layout))
# linear in g: its gradient is the pooling of the head; x, read for its shape, gets none
(_backward_op("_avg_pool2d_backward", "Gradient of avg_pool2d's input from g and x; attrs "
              "kernel, stride, padding (needed for its gradient unless the static shapes imply "
              "it), data_format.", 2, _pool_backward_shape(1, 1))
 .set_attr("FGradient", lambda n, g: [create_op(
     "avg_pool2d", g[0], **{**_pool_attrs(n), "padding": _implied_padding(n)}), None]))


# -- batch_norm --------------------------------------------------------------------------------
def _batch_norm_shape(attrs, in_shapes, out_shapes):
    data = in_shapes[0] if in_shapes[0] is not None else out_shapes[0]
    if data is not None and len(data) < 2:
        raise ShapeError(f"input must be (batch, channels, ...), got shape {shape_str(data)}")
    if data is None:
        return in_shapes, out_shapes
    channels = (data[1],)
    for what, got in zip(("gamma", "beta"), in_shapes[1:]):
        if got is not None and tuple(got) != channels:
            raise ShapeError(f"{what} must be {channels} for input {data}, got {tuple(got)}")
    return [data, channels, channels], [data, channels, channels]


def _unreached(grad):
    """Whether ``grad`` is the Gradient pass's zeros for an output nothing differentiated."""
    return grad.outputs[0].node.op.attr("TGradientRole") == "zero"


class _Channels:
    """Per-channel (axis 1) sums and broadcasts over x's other axes, and the count N each
    channel sums; batch norm's second-order rules need x's static rank."""

    def __init__(self, data, gamma, what):
        rank = data.get_shape().ndims
        if rank is None:
            raise GraphError(f"{what} needs the static rank of {data.name}")
        self.axes, self.data, self.gamma = (0, *range(2, rank)), data, gamma

    def sum(self, t):
        return create_op("reduce_sum", t, axis=self.axes)

    def spread(self, v):
        return create_op("broadcast_like", v, self.data, axis=self.axes)

    def times_count(self, t):  # t * N, N = numel(x) / channels
        return create_op("_scale_like", t, self.gamma, self.data)

    def over_count(self, t):
        return create_op("_scale_like", t, self.data, self.gamma)


def _batch_norm_grad(node, grads):
    data, gamma = node.inputs[:2]
    backward = create_op("_batch_norm_backward", grads[0], data, gamma, node.outputs[1],
                         node.outputs[2], eps=node.attrs.get("eps", 1e-5))
    grad_data = backward[0]
    if not (_unreached(grads[1]) and _unreached(grads[2])):  # the statistics read (double
        # backprop: the backward op reads them): mean = sum(x) / N, invstd = (var + eps)^-1/2
        c, invstd = _Channels(data, gamma, "the gradient of batch_norm's statistics"), \
            node.outputs[2]
        centred = data - c.spread(node.outputs[1])
        grad_data = grad_data + c.over_count(c.spread(grads[1]) - c.spread(
            grads[2] * invstd * invstd * invstd) * centred)
    return [grad_data, backward[1], backward[2]]


(register_op("batch_norm")
 .describe("Batch normalisation over axis 1 with the batch's statistics: y = gamma * (x - mean)"
           " / sqrt(var + eps) + beta.  Outputs y, mean and 1/sqrt(var + eps) (for the "
           "gradient); attr eps (default 1e-5).  No running statistics are kept.")
 .set_num_inputs(3).set_num_outputs(3)
 .set_attr("FListInputNames", lambda attrs: list(_BN_INPUTS))
 .set_attr("FSetInputVarAttrOnCompose", _initialise_inputs(
     _BN_INPUTS, gamma="ones", beta="zeros"))
 .set_attr("FInferShape", _batch_norm_shape).set_attr("FGradient", _batch_norm_grad)
 .set_attr("FDataLayout", lambda attrs: "NCHW"))


def _batch_norm_backward_shape(attrs, in_shapes, out_shapes):
    data = in_shapes[1] if in_shapes[1] is not None else out_shapes[0]
    if data is None:
        return in_shapes, out_shapes
    channels = (data[1],)
    return [data, data, channels, channels, channels], [data, channels, channels]




def _batch_norm_backward_grad(node, grads):
    """With xh = (x - mean) s (s = 1/std), the op is dbeta = sum(g), dgamma = sum(g xh), dx =
    gamma s / N (N g - dbeta - xh dgamma) (sums over all axes but 1, broadcasts back along
    it).  Its gradient for the heads (a, c, e) of (dx, dgamma, dbeta), by the chain rule
    through that formula, every input independent."""
    (g, data, gamma, mean, invstd), (a, c, e) = node.inputs, grads
    ch = _Channels(data, gamma, "the gradient of batch_norm's gradient")
    grad_gamma, grad_beta = node.outputs[1], node.outputs[2]
    centred = data - ch.spread(mean)
    normed = centred * ch.spread(invstd)
    ak = ch.over_count(a * ch.spread(gamma * invstd))
    to_beta, to_gamma = e - ch.sum(ak), c - ch.sum(ak * normed)
    inner = ch.times_count(g) - ch.spread(grad_beta) - normed * ch.spread(grad_gamma)
    per_channel = ch.over_count(ch.sum(a * inner))
    grad_normed = g * ch.spread(to_gamma) - ak * ch.spread(grad_gamma)
    return [ch.times_count(ak) + ch.spread(to_beta) + normed * ch.spread(to_gamma),
            ch.spread(invstd) * grad_normed, invstd * per_channel,
            -invstd * ch.sum(grad_normed),
            gamma * per_channel + ch.sum(grad_normed * centred)]


(_backward_op("_batch_norm_backward", "Gradients of batch_norm's x, gamma and beta from g, x, "
              "gamma and the saved mean and 1/std; attr eps.", 5, _batch_norm_backward_shape, 3)
 .set_attr("FGradient", _batch_norm_backward_grad))


# -- flatten -----------------------------------------------------------------------------------
def _flatten_shape(attrs, in_shapes, out_shapes):
    data = in_shapes[0]
    if data is None:
        return in_shapes, out_shapes
    if len(data) < 1:
        raise ShapeError("input must have a batch axis, got a scalar")
    return in_shapes, [(data[0], math.prod(data[1:]))]


register_view_op("flatten", "x as (batch, everything else); shares memory.", _flatten_shape)


# -- softmax cross-entropy ---------------------------------------------------------------------
def _xent_shape(attrs, in_shapes, out_shapes):
    logits, labels = in_shapes
    _check_rank(logits, 2, "(batch, classes)", "logits")
    if labels is not None and len(labels) != 1:
        raise ShapeError(f"labels must be a vector of class ids (batch,), got shape "
                         f"{shape_str(labels)}")
    if logits is not None and labels is not None and labels[0] != logits[0]:
        raise ShapeError(f"{labels[0]} labels for a batch of {logits[0]} logits: the label "
                         f"count must match the batch")
    if logits is not None:
        labels = (logits[0],)
    return [logits, labels], [()]


# TUncapturable: the bodies check the class ids on the host (torch.aminmax, then a comparison
# in Python), as TensorFlow's CPU kernels do: a sync a CUDA graph capture refuses
_XENT = "mean_sparse_softmax_cross_entropy_with_logits"
(register_op(_XENT)
 .describe("Mean over the batch of -log softmax(logits)[label]: logits (batch, classes), labels "
           "(batch,) holding class ids as floats.")
 .set_num_inputs(2).set_attr("FInferShape", _xent_shape).set_attr("TUncapturable", True)
 .set_attr("FGradient", lambda n, g: [create_op(f"_{_XENT}_backward", g[0], *n.inputs), None]))


def _xent_backward_grad(node, grads):
    """out = (softmax(z) - onehot(labels)) * g / batch: d g = sum(h * the op of ones); d z =
    softmax's backward of h * g, / batch; labels get none."""
    (g, logits, labels), h = node.inputs, grads[0]
    unit = create_op(node.op.name, create_op("ones_like", g), logits, labels)
    grad_logits = create_op("_softmax_backward", h * g, create_op("softmax", logits, axis=-1),
                            axis=-1)
    return [create_op("reduce_sum", h * unit), create_op("_scale_like", grad_logits, labels, g),
            None]


(_backward_op(f"_{_XENT}_backward", "(softmax(logits) - onehot(labels)) * g / batch, from g, "
              "logits and labels.", 3, same_as_input(1))
 .set_attr("TUncapturable", True).set_attr("FGradient", _xent_backward_grad))


# -- dropout -----------------------------------------------------------------------------------
def _dropout_shape(attrs, in_shapes, out_shapes):
    data, keep_prob = in_shapes
    if keep_prob is not None and math.prod(keep_prob) != 1:
        raise ShapeError(f"keep_prob must be a scalar, got shape {shape_str(keep_prob)}")
    data = data if data is not None else out_shapes[0]
    noise_shape = attrs.get("noise_shape")
    if data is None or noise_shape is None:
        return [data, keep_prob], [data, data]
    if len(noise_shape) != len(data) or any(n not in (-1, 1, d) for n, d in
                                            zip(noise_shape, data)):
        raise ShapeError(f"noise_shape {list(noise_shape)} does not broadcast to the input's "
                         f"shape {shape_str(data)}")
    return [data, keep_prob], [data, tuple(d if n == -1 else n for n, d in
                                           zip(noise_shape, data))]


(register_op("dropout")
 .describe("Training-time dropout: outputs y = x * mask and mask, where mask is 1 / keep_prob "
           "with probability keep_prob (input 1, a scalar) and 0 otherwise; attr noise_shape "
           "(-1: x's size) gives the mask a shape that broadcasts to x's, as TensorFlow's; "
           "attrs seed, seed2 as the random ops' (tinyflow/frontend/random_ops.py).")
 .set_num_inputs(2).set_num_outputs(2).set_attr("FInferShape", _dropout_shape)
 .set_attr("FInplaceOption", [(0, 0)]).set_attr("TRandom", True)
 .set_attr("FGradient", lambda n, g: [g[0] * n.outputs[1], None]))


# TTFType: TensorFlow's op type (op.type) where it is not our name in CamelCase
for _name, _type in (("conv2d", "Conv2D"), ("_conv2d_backward_data", "Conv2DBackpropInput"),
        ("_conv2d_backward_weight", "Conv2DBackpropFilter"), ("max_pool2d", "MaxPool"),
        ("_max_pool2d_backward", "MaxPoolGrad"), ("_max_pool2d_backward_backward",
        "MaxPoolGradGrad"), ("avg_pool2d", "AvgPool"), ("_avg_pool2d_backward", "AvgPoolGrad"),
        ("batch_norm", "FusedBatchNorm"), ("_batch_norm_backward", "FusedBatchNormGrad")):
    Op.get(_name).set_attr("TTFType", _type)
