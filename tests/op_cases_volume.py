"""test_ops' table for the ops over volumes (tf.nn.conv3d, max_pool3d, avg_pool3d and their
gradient ops), NDHWC and NCDHW, SAME (uneven too) and VALID, against torch's conv3d and
pooling on a copy padded as TensorFlow pads (forward values; gradients against torch's
autograd and finite differences)."""
import math

import numpy as np
import torch
import torch.nn.functional as F

import tinyflow as tf
from tinyflow.nnvm.symbol import create_op


def tf_pads(sizes, kernel, stride, padding):
    """F.pad's widths (last axis first) of TF's padding: SAME puts the odd pixel after."""
    widths = []
    for size, k, s in zip(sizes, kernel, stride):
        total = 0 if padding == "VALID" else max((-(-size // s) - 1) * s + k - size, 0)
        widths = [total // 2, total - total // 2] + widths
    return widths


def ncdhw(function):
    """``function`` of NCDHW tensors applied to NDHWC ones."""
    return lambda x, *rest: function(x.permute(0, 4, 1, 2, 3), *rest).permute(0, 2, 3, 4, 1)


def torch_conv3d(x, w, stride, padding):  # x NCDHW, w DHWIO
    weight = w.permute(4, 3, 0, 1, 2)
    return F.conv3d(F.pad(x, tf_pads(x.shape[2:], weight.shape[2:], stride, padding)), weight,
                    stride=stride)


def torch_max_pool3d(x, kernel, stride, padding):
    padded = F.pad(x, tf_pads(x.shape[2:], kernel, stride, padding), value=-math.inf)
    return F.max_pool3d(padded, kernel, stride)


def torch_avg_pool3d(x, kernel, stride, padding):
    def sums(t):
        return F.avg_pool3d(F.pad(t, tf_pads(x.shape[2:], kernel, stride, padding)), kernel,
                            stride, divisor_override=1)
    return sums(x) / sums(torch.ones_like(x))


def distinct(rng, shape):
    """Values 0.01 apart in random order: no two maxima within a finite-difference step."""
    return (rng.permutation(math.prod(shape)).reshape(shape) - math.prod(shape) / 2) * 0.01


def vjp(function, wrt):
    """The twin of a backward op ``op(g, *args)``: g's vector-Jacobian product with
    ``function(*args)`` for the arg at index ``wrt``."""
    def ref(g, *args):
        args = [a if a.requires_grad else a.detach().requires_grad_() for a in args]
        (grad,) = torch.autograd.grad(function(*args), [args[wrt]], g, create_graph=True)
        return grad
    return ref


def jvp(function):
    """The twin of ``op(h, x)``: the Jacobian of ``function`` at x times h (by double
    backward)."""
    def ref(h, x):
        x = x.detach().requires_grad_()
        out = function(x)
        head = torch.zeros_like(out, requires_grad=True)
        (vjp_,) = torch.autograd.grad(out, x, head, create_graph=True)
        (result,) = torch.autograd.grad(vjp_, head, h, create_graph=True)
        return result
    return ref


def with_head(function, draw):
    def inputs(rng):
        args = [np.asarray(a, np.float32) for a in draw(rng)]
        out = function(*[torch.tensor(a, dtype=torch.float64) for a in args])
        return [rng.standard_normal(tuple(out.shape)), *args]
    return inputs


# (x, filter DHWIO, stride, padding, data_format)
# (small: a float32 finite difference over many products of many taps drowns in rounding)
CONVS = [((2, 4, 5, 3, 2), (3, 2, 2, 2, 3), (1, 1, 1), "VALID", "NDHWC"),
         ((1, 5, 4, 3, 2), (3, 2, 2, 2, 2), (2, 2, 1), "SAME", "NDHWC"),  # uneven SAME
         ((1, 2, 4, 5, 3), (2, 3, 2, 2, 2), (1, 2, 2), "SAME", "NCDHW")]
# (x, kernel, stride, padding, data_format)
POOLS = [((2, 4, 5, 6, 2), (2, 2, 2), (2, 2, 2), "VALID", "NDHWC"),
         ((2, 5, 4, 5, 2), (3, 2, 2), (2, 1, 2), "SAME", "NDHWC"),
         ((1, 2, 5, 4, 3), (2, 3, 2), (1, 2, 2), "SAME", "NCDHW")]


def _conv_cases(add):
    for x_shape, w_shape, stride, padding, layout in CONVS:
        label = f"{layout}-{padding}-stride={stride}"
        ref = (lambda x, w, s=stride, p=padding: torch_conv3d(x, w, s, p))
        ref = ref if layout == "NCDHW" else ncdhw(ref)
        add("conv3d", label, lambda x, w, s=stride, p=padding, f=layout: tf.nn.conv3d(
            x, w, s, p, data_format=f), [x_shape, w_shape], ref)
        for op, wrt in (("_conv3d_backward_data", 0), ("_conv3d_backward_weight", 1)):
            add(op, label, lambda g, x, w, op=op, s=stride, p=padding, f=layout: create_op(
                op, g, x, w, stride=s, padding=p, data_format=f), ref=vjp(ref, wrt),
                inputs=with_head(ref, lambda rng, a=x_shape, b=w_shape: [
                    rng.standard_normal(a), rng.standard_normal(b)]), eps=0.1)  # linear


def _pool_cases(add):
    for x_shape, kernel, stride, padding, layout in POOLS:
        label = f"{layout}-{padding}-kernel={kernel}-stride={stride}"
        for op, api, function in (("max_pool3d", tf.nn.max_pool3d, torch_max_pool3d),
                                  ("avg_pool3d", tf.nn.avg_pool3d, torch_avg_pool3d)):
            ref = (lambda x, f=function, k=kernel, s=stride, p=padding: f(x, k, s, p))
            ref = ref if layout == "NCDHW" else ncdhw(ref)
            draw = (lambda rng, shape=x_shape: [distinct(rng, shape)])
            add(op, label, lambda x, api=api, k=kernel, s=stride, p=padding, f=layout: api(
                x, k, s, p, data_format=f), ref=ref, inputs=draw)
            add(f"_{op}_backward", label, lambda g, x, op=op, k=kernel, s=stride, p=padding,
                f=layout: create_op(f"_{op}_backward", g, x, kernel=k, stride=s, padding=p,
                                    data_format=f),
                ref=vjp(ref, 0), inputs=with_head(ref, draw))
            if op == "max_pool3d":  # its gradient's gradient: the head at each maximum
                add("_max_pool3d_backward_backward", label, lambda h, x, k=kernel, s=stride,
                    p=padding, f=layout: create_op("_max_pool3d_backward_backward", h, x,
                                                   kernel=k, stride=s, padding=p,
                                                   data_format=f),
                    ref=jvp(ref), inputs=lambda rng, draw=draw, shape=x_shape: [
                        rng.standard_normal(shape), *draw(rng)])


def add_cases(add):
    _conv_cases(add)
    _pool_cases(add)
