"""test_ops' table for conv2d's dilation (tf.nn.conv2d's dilations, atrous_conv2d's rate) and
its depthwise filters (filter_format 'HWIM', tf.nn.depthwise_conv2d_native): values against
torch's F.conv2d with ``dilation`` and ``groups`` on the input padded as TensorFlow pads it
(SAME's odd pixel after), gradients against its autograd and finite differences."""
import numpy as np
import torch
import torch.nn.functional as F

import tinyflow as tf
from tinyflow.nnvm.symbol import create_op

# a convolution's data and weight gradients are linear in each input: their finite differences
# are exact at a large step (test_ops.Case), where float32 rounding is small beside it
LINEAR_STEP = 0.1


def tf_pad(x, extent, stride, padding):
    """NCHW x padded as TensorFlow pads it for a window of ``extent`` pixels."""
    pads = []
    for size, k, s in zip(x.shape[2:], extent, stride):
        total = 0 if padding == "VALID" else max((-(-size // s) - 1) * s + k - size, 0)
        pads.append((total // 2, total - total // 2))
    return F.pad(x, (*pads[1], *pads[0]))


def torch_conv(x, w, stride=(1, 1), padding="VALID", dilation=(1, 1), groups=1):
    """TensorFlow's conv2d of NCHW x with an OIHW w, by torch."""
    extent = [(k - 1) * d + 1 for k, d in zip(w.shape[2:], dilation)]
    return F.conv2d(tf_pad(x, extent, stride, padding), w, stride=stride, dilation=dilation,
                    groups=groups)


def depthwise_oihw(w):
    """TensorFlow's depthwise filter [kh, kw, in, multiplier] as torch's grouped weight
    (in * multiplier, 1, kh, kw): output channel c * multiplier + m."""
    kh, kw, channels, multiplier = w.shape
    return w.reshape(kh, kw, 1, channels * multiplier).permute(3, 2, 0, 1)


def nhwc(function):
    return lambda x, *rest: function(x.permute(0, 3, 1, 2), *rest).permute(0, 2, 3, 1)


def vjp(function, wrt):
    """The twin of a backward op ``op(g, *args)``: the vector-Jacobian product with g of
    ``function(*args)`` for input ``wrt`` (differentiable itself: the op has a gradient)."""
    def ref(g, *args):
        args = [a if a.requires_grad else a.detach().requires_grad_() for a in args]
        (grad,) = torch.autograd.grad(function(*args), [args[wrt]], g, create_graph=True)
        return grad
    return ref


def with_head(function, *shapes):
    """``inputs(rng)`` for a backward op: ``(g, *args)``, g shaped like ``function(*args)``."""
    def inputs(rng):
        args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        out = function(*[torch.tensor(a, dtype=torch.float64) for a in args])
        return [rng.standard_normal(tuple(out.shape)), *args]
    return inputs


# (dilation, stride, padding) of conv2d on (2, 3, 9, 8) with a (4, 3, 3, 2) weight
DILATED = [((2, 2), (1, 1), "SAME"), ((2, 1), (1, 1), "VALID"), ((3, 2), (1, 1), "SAME"),
           ((2, 2), (2, 2), "SAME"), ((1, 2), (2, 1), "VALID")]
# (multiplier, stride, padding, dilation) of a depthwise conv2d on NHWC (2, 7, 6, 3)
DEPTHWISE = [(1, (1, 1), "SAME", (1, 1)), (3, (1, 1), "VALID", (1, 1)),
             (2, (2, 2), "SAME", (1, 1)), (2, (2, 1), "VALID", (1, 1)),
             (2, (1, 1), "SAME", (2, 2))]


def _dilated_cases(add):
    shapes = [(2, 3, 9, 8), (4, 3, 3, 2)]
    for dilation, stride, padding in DILATED:
        label = f"dilation={dilation}-stride={stride}-{padding}"
        conv = lambda x, w, s=stride, p=padding, d=dilation: torch_conv(x, w, s, p, d)
        add("conv2d", label, lambda x, w, s=stride, p=padding, d=dilation: create_op(
            "conv2d", x, w, stride=s, padding=p, dilation=d), shapes, conv)
        for op, wrt in (("_conv2d_backward_data", 0), ("_conv2d_backward_weight", 1)):
            # one image: the weight gradient's sums stay short enough for finite differences
            add(op, label, lambda g, x, w, op=op, s=stride, d=dilation: create_op(
                op, g, x, w, stride=s, dilation=d), ref=vjp(conv, wrt),
                inputs=with_head(conv, (1, 3, 9, 8), shapes[1]), eps=LINEAR_STEP)
    hwio = lambda w: w.permute(3, 2, 0, 1)
    add("conv2d", "tf-dilations-NHWC", lambda x, w: tf.nn.conv2d(
        x, w, [1, 1, 1, 1], "SAME", dilations=[1, 2, 3, 1]), [(2, 9, 8, 3), (3, 2, 3, 4)],
        nhwc(lambda x, w: torch_conv(x, hwio(w), padding="SAME", dilation=(2, 3))))
    add("conv2d", "atrous-rate=2-VALID", lambda x, w: tf.nn.atrous_conv2d(x, w, 2, "VALID"),
        [(1, 9, 8, 2), (3, 3, 2, 3)],
        nhwc(lambda x, w: torch_conv(x, hwio(w), dilation=(2, 2))))


def _depthwise_cases(add):
    for multiplier, stride, padding, dilation in DEPTHWISE:
        label = f"depthwise-x{multiplier}-stride={stride}-{padding}-dilation={dilation}"
        shapes = [(2, 7, 6, 3), (3, 2, 3, multiplier)]
        conv = nhwc(lambda x, w, s=stride, p=padding, d=dilation: torch_conv(
            x, depthwise_oihw(w), s, p, d, groups=3))
        add("conv2d", label, lambda x, w, s=stride, p=padding, d=dilation:
            tf.nn.depthwise_conv2d_native(x, w, [1, *s, 1], p, dilations=[1, *d, 1]),
            shapes, conv)
        attrs = {"stride": stride, "dilation": dilation, "data_format": "NHWC",
                 "filter_format": "HWIM"}
        for op, wrt in (("_conv2d_backward_data", 0), ("_conv2d_backward_weight", 1)):
            add(op, label, lambda g, x, w, op=op, attrs=attrs: create_op(op, g, x, w, **attrs),
                ref=vjp(conv, wrt), inputs=with_head(conv, *shapes), eps=LINEAR_STEP)
    add("conv2d", "depthwise-NCHW", lambda x, w: tf.nn.depthwise_conv2d(
        x, w, [1, 1, 2, 2], "SAME", data_format="NCHW"), [(2, 3, 7, 6), (3, 3, 3, 2)],
        lambda x, w: torch_conv(x, depthwise_oihw(w), (2, 2), "SAME", groups=3))


def _fused_cases(add):
    """_fused_conv2d (FuseConvActivation's, oneDNN's post-op on the CPU) with a dilation and a
    depthwise filter: act(conv + bias)."""
    add("_fused_conv2d", "tanh-dilation=(2, 1)-SAME", lambda x, w, b: create_op(
        "_fused_conv2d", x, w, b, activation="tanh", padding="SAME", dilation=(2, 1),
        no_bias=False), [(2, 3, 9, 8), (4, 3, 3, 2), (4,)],
        lambda x, w, b: torch.tanh(torch_conv(x, w, padding="SAME", dilation=(2, 1))
                                   + b.view(-1, 1, 1)))
    add("_fused_conv2d", "sigmoid-depthwise-x2-stride=(2, 2)-SAME", lambda x, w, b: create_op(
        "_fused_conv2d", x, w, b, activation="sigmoid", stride=(2, 2), padding="SAME",
        data_format="NHWC", filter_format="HWIM", no_bias=False),
        [(2, 7, 6, 3), (3, 3, 3, 2), (6,)], nhwc(lambda x, w, b: torch.sigmoid(torch_conv(
            x, depthwise_oihw(w), (2, 2), "SAME", groups=3) + b.view(-1, 1, 1))))


def add_cases(add):
    _dilated_cases(add)
    _depthwise_cases(add)
    _fused_cases(add)
