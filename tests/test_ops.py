"""Every built-in op against PyTorch: forward values and gradients, memory planning on and off.

``CASES`` is the "how to test me" table: each :class:`Case` says how to build the op from
placeholders, which inputs suit it and its PyTorch twin (float64).  Forward values are compared
with the twin; gradients with the twin's autograd and with finite differences
(:func:`tinyflow.frontend.testing.check_gradients`).  ``test_every_op_has_a_spec`` walks the
registry and fails for an op without a case, so a new op is covered without anyone remembering.
"""
import importlib
import itertools
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tinyflow as tf
from tinyflow.executor import Executor
from tinyflow.frontend.testing import check_gradients, differentiable_ops, random_inputs
from tinyflow.lua_ops.conv import kernels as conv_kernels
from tinyflow.lua_ops.runtime import lua_runtime
from tinyflow.nnvm import GraphError, Op, apply_passes, no_gradient
from tinyflow.nnvm.graph import Graph
from tinyflow.nnvm.passes import EXTERNAL
from tinyflow.nnvm.symbol import NodeEntry, Symbol, create_op
from tinyflow.session.options import SessionOptions
from tinyflow.session.variables import VariableStore

F64 = torch.float64
pytestmark = [
    # An op body must write into the buffer the plan gave it, never have torch resize it.
    pytest.mark.filterwarnings("error:An output with one or more elements was resized"),
    pytest.mark.usefixtures("fresh_graph", "torch_seed"),
]


LINEAR_STEP = 0.1  # see Case's eps


@dataclass(frozen=True)
class Case:
    """How to test op ``op`` once.

    ``build(*symbols)`` applies the op to placeholders of ``shapes`` (no shapes: an op without
    inputs).  ``ref(*tensors)`` is its PyTorch twin on float64 tensors (a tuple for several
    outputs).  Inputs are random with magnitudes in [0.1, 1.5] (away from kinks at 0), in
    [0.5, 1.5] with ``positive``, or ``inputs(rng)`` for ops that need particular values (ties,
    probabilities, zeros, class ids).  ``wrt``: the inputs whose gradient is checked (default
    all; class ids are not differentiable).  ``eps``: the finite differences' step; an op linear
    in each input (a convolution's data and weight gradients) takes ``LINEAR_STEP``: central
    differences are exact for it at any step, and float32 rounding shrinks as the step grows.
    """

    op: str
    label: str
    build: Callable
    shapes: tuple = ()
    ref: Callable | None = None
    positive: bool = False
    inputs: Callable | None = None
    wrt: tuple | None = None
    check_gradient: bool = True  # False: inputs on a kink (zeros, ties) or an auxiliary output
    eps: float = 1e-3

    @property
    def id(self):
        return f"{self.op}-{self.label}"

    def values(self, seed=0):
        if self.inputs is not None:
            return [np.asarray(v, np.float32) for v in self.inputs(np.random.default_rng(seed))]
        return random_inputs(self.shapes, seed, self.positive)


def as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def softmax_values(rng, shape, axis, log=False):
    """Inputs (g, y) of a softmax backward op: y a (log-)softmax output."""
    y = torch.tensor(rng.standard_normal(shape))
    y = torch.log_softmax(y, axis) if log else torch.softmax(y, axis)
    return [rng.standard_normal(shape), y.numpy()]


def torch_pad(x, dim, pad):
    dim %= x.dim()
    widths = [0, 0] * (x.dim() - dim)  # F.pad lists (front, back) pairs from the last dim back
    widths[-2 if pad < 0 else -1] = abs(pad)
    return F.pad(x, widths)


def torch_reduce(function, axis, keepdims):
    def ref(x):
        if axis == ():  # TF's axis=[] reduces nothing; torch's dim=() reduces everything
            return x * 1
        return function(x, dim=tuple(range(x.dim())) if axis is None else axis, keepdim=keepdims)
    return ref


def torch_broadcast_like(x, like, axis=None, mean=False):
    if axis is not None:
        for a in sorted(a % like.dim() for a in ((axis,) if isinstance(axis, int) else axis)):
            x = x.unsqueeze(a)
    out = x.expand(like.shape)
    return out * (x.numel() / like.numel()) if mean else out


def tf_pads(size, kernel, stride, padding):
    """(before, after) padding of one axis: TensorFlow's SAME puts the odd pixel after."""
    if padding == "VALID":
        return 0, 0
    total = max((-(-size // stride) - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def torch_window_pad(x, kernel, stride, padding, value=0.0):
    (top, bottom), (left, right) = (tf_pads(x.shape[2 + i], kernel[i], stride[i], padding)
                                    for i in range(2))
    return F.pad(x, (left, right, top, bottom), value=value)


def torch_conv2d(x, w, b=None, stride=(1, 1), padding="VALID"):
    return F.conv2d(torch_window_pad(x, w.shape[2:], stride, padding), w, b, stride)


def torch_max_pool(x, kernel, stride, padding):
    return F.max_pool2d(torch_window_pad(x, kernel, stride, padding, -np.inf), kernel, stride)


def torch_avg_pool(x, kernel, stride, padding):
    # Padding is not counted: window sums over the real pixels in each window.
    def sums(t):
        return F.avg_pool2d(torch_window_pad(t, kernel, stride, padding), kernel, stride,
                            divisor_override=1)
    return sums(x) / sums(torch.ones_like(x))


def torch_batch_norm(x, gamma, beta, eps=1e-5, statistics=False):
    axes = [0, *range(2, x.dim())]
    mean, var = x.mean(axes), x.var(axes, unbiased=False)
    shape = [1, -1] + [1] * (x.dim() - 2)
    y = (x - mean.view(shape)) / torch.sqrt(var.view(shape) + eps) * gamma.view(shape)
    y = y + beta.view(shape)
    return (y, mean, 1 / torch.sqrt(var + eps)) if statistics else y


def torch_vjp(function, wrt):
    """The twin of a backward op ``op(g, *args)``: the vector-Jacobian product of
    ``function(*args)`` with g, for the args at indices ``wrt``."""
    def ref(g, *args):
        # differentiable itself (create_graph) for a backward op that has a gradient rule
        args = [a if a.requires_grad else a.detach().requires_grad_() for a in args]
        grads = torch.autograd.grad(function(*args), [args[i] for i in wrt], g,
                                    create_graph=True)
        return grads[0] if len(grads) == 1 else grads
    return ref


def torch_jvp(function):
    """The twin of ``op(h, x)`` = the Jacobian of ``function`` at x times h (the gradient of
    a vector-Jacobian product with respect to its vector), by double backward."""
    def ref(h, x):
        x = x.detach().requires_grad_()
        out = function(x)
        head = torch.zeros_like(out, requires_grad=True)
        (vjp,) = torch.autograd.grad(out, x, head, create_graph=True)
        (jvp,) = torch.autograd.grad(vjp, head, h, create_graph=True)
        return jvp
    return ref


def torch_batch_norm_backward(g, x, gamma, mean, invstd):
    """batch_norm's gradients (dx, dgamma, dbeta) as a function of its five inputs, each
    independent (the saved statistics too), as the backward op computes them."""
    axes = [0, *range(2, x.dim())]
    shape, count = [1, -1] + [1] * (x.dim() - 2), x.numel() / x.shape[1]
    normed = (x - mean.view(shape)) * invstd.view(shape)
    grad_beta, grad_gamma = g.sum(axes), (g * normed).sum(axes)
    grad_x = (gamma * invstd).view(shape) / count * (
        count * g - grad_beta.view(shape) - normed * grad_gamma.view(shape))
    return grad_x, grad_gamma, grad_beta


def with_head(function, *shapes, draw=None):
    """``inputs(rng)`` for a backward op: ``(g, *args)`` with g shaped like ``function(*args)``;
    ``draw(rng)`` gives args other than standard normals of ``shapes``."""
    def inputs(rng):
        args = draw(rng) if draw else [rng.standard_normal(s) for s in shapes]
        args = [np.asarray(a, np.float32) for a in args]
        out = function(*[torch.tensor(a, dtype=F64) for a in args])
        return [rng.standard_normal(tuple(out.shape)), *args]
    return inputs


def distinct(rng, shape):
    """Values 0.01 apart in random order: no two maxima within a finite-difference step."""
    return (rng.permutation(math.prod(shape)).reshape(shape) - math.prod(shape) / 2) * 0.01


def class_ids(rng, batch=5, classes=4):
    return [rng.standard_normal((batch, classes)), rng.integers(0, classes, batch)]


def _layer_cases(add):
    add("linear", "no-bias", lambda x, w: tf.nn.linear(x, 5, weight=w), [(4, 3), (5, 3)],
        lambda x, w: F.linear(x, w))
    add("linear", "bias", lambda x, w, b: tf.nn.linear(x, 5, weight=w, bias=b),
        [(4, 3), (5, 3), (5,)], F.linear)
    add("flatten", "4d", tf.nn.flatten_layer, [(2, 3, 2, 2)], lambda x: x.reshape(2, -1))
    convs = (((1, 1), "VALID", False), ((1, 1), "SAME", False), ((2, 2), "SAME", True),
             ((2, 1), "VALID", True), ((3, 2), "SAME", False))
    for stride, padding, bias in convs:
        shapes = [(2, 3, 7, 6), (4, 3, 3, 2)] + [(4,)] * bias
        add("conv2d", f"stride={stride}-{padding}-bias={bias}",
            lambda x, w, *b, s=stride, p=padding: tf.nn.conv2d(
                x, weight=w, bias=b[0] if b else None, strides=s, padding=p),
            shapes, lambda x, w, *b, s=stride, p=padding: torch_conv2d(
                x, w, b[0] if b else None, s, p))
        conv = lambda x, w, s=stride, p=padding: torch_conv2d(x, w, None, s, p)
        for op, wrt in (("_conv2d_backward_data", 0), ("_conv2d_backward_weight", 1)):
            add(op, f"stride={stride}-{padding}",
                lambda g, x, w, op=op, s=stride: create_op(op, g, x, w, stride=s),
                ref=torch_vjp(conv, [wrt]), inputs=with_head(conv, *shapes[:2]),
                eps=LINEAR_STEP)
    pools = (((2, 2), (2, 2), "VALID"), ((2, 2), (2, 2), "SAME"), ((3, 3), (1, 1), "SAME"),
             ((3, 2), (2, 1), "VALID"), ((3, 3), (2, 2), "SAME"))
    for (op, api, function), (kernel, stride, padding) in itertools.product(
            (("max_pool2d", tf.nn.max_pool, torch_max_pool),
             ("avg_pool2d", tf.nn.avg_pool, torch_avg_pool)), pools):
        label = f"kernel={kernel}-stride={stride}-{padding}"
        pool = lambda x, f=function, k=kernel, s=stride, p=padding: f(x, k, s, p)
        draw = lambda rng: [distinct(rng, (2, 3, 7, 6))]
        add(op, label, lambda x, api=api, k=kernel, s=stride, p=padding: api(
            x, ksize=k, strides=s, padding=p, data_format="NCHW"), ref=pool, inputs=draw)
        add(f"_{op}_backward", label, lambda g, x, op=op, api=api, k=kernel, s=stride,
            p=padding: create_op(f"_{op}_backward", g, x, *_argmax_of(op, api(
                x, ksize=k, strides=s, padding=p, data_format="NCHW")), kernel=k, stride=s),
            ref=torch_vjp(pool, [0]), inputs=with_head(pool, draw=draw))
        if op == "max_pool2d":  # its gradient's gradient: the head at each window's argmax
            add("_max_pool2d_backward_backward", label, lambda h, x, k=kernel, s=stride,
                p=padding: create_op("_max_pool2d_backward_backward", h, *_argmax_of(
                    "max_pool2d", tf.nn.max_pool(x, ksize=k, strides=s, padding=p,
                                                 data_format="NCHW")), kernel=k, stride=s),
                ref=torch_jvp(pool), inputs=lambda rng, draw=draw: [
                    rng.standard_normal((2, 3, 7, 6)), *draw(rng)])
    for shape in ((4, 3, 2, 2), (6, 3)):
        add("batch_norm", f"{shape}", lambda x, g, b: tf.nn.batch_normalization(
            x, gamma=g, beta=b, epsilon=1e-3), [shape, (3,), (3,)],
            lambda x, g, b: torch_batch_norm(x, g, b, 1e-3))
        add("batch_norm", f"{shape}-statistics", lambda x, g, b: create_op(
            "batch_norm", x, g, b), [shape, (3,), (3,)],
            lambda x, g, b: torch_batch_norm(x, g, b, statistics=True), check_gradient=False)

        def batch_norm_inputs(rng, shape=shape):
            x, gamma = rng.standard_normal(shape), rng.uniform(0.5, 1.5, 3)
            _, mean, invstd = torch_batch_norm(torch.tensor(x), torch.tensor(gamma),
                                               torch.zeros(3, dtype=F64), statistics=True)
            return [rng.standard_normal(shape), x, gamma, mean.numpy(), invstd.numpy()]

        add("_batch_norm_backward", f"{shape}", lambda *args: create_op(
            "_batch_norm_backward", *args, eps=1e-5),
            ref=torch_batch_norm_backward, inputs=batch_norm_inputs)
        add("_batch_norm_backward", f"{shape}-autograd", lambda *args: create_op(
            "_batch_norm_backward", *args, eps=1e-5),
            ref=lambda g, x, gamma, mean, invstd: torch_vjp(torch_batch_norm, [0, 1, 2])(
                g, x, gamma, torch.zeros_like(gamma)), inputs=batch_norm_inputs,
            check_gradient=False)  # the twin recomputes the statistics: the values only
    xent = "mean_sparse_softmax_cross_entropy_with_logits"
    cross_entropy = lambda logits, labels: F.cross_entropy(logits, labels.long())
    add(xent, "5x4", tf.nn.mean_sparse_softmax_cross_entropy_with_logits, ref=cross_entropy,
        inputs=class_ids, wrt=(0,))
    add(f"_{xent}_backward", "5x4", lambda g, logits, labels: create_op(
        f"_{xent}_backward", g, logits, labels),
        ref=lambda g, logits, labels: torch_vjp(cross_entropy, [0])(g, logits, labels),
        inputs=lambda rng: [rng.standard_normal(()), *class_ids(rng)], wrt=(0, 1))


def _array_cases(add):
    """TensorFlow's array ops (tinyflow/ops/array.py); more in tests/test_tf_array.py."""
    add("transpose", "default", tf.transpose, [(2, 3, 4)], lambda x: x.permute(2, 1, 0))
    add("transpose", "perm", lambda x: tf.transpose(x, [1, 0, 2]), [(2, 3, 4)],
        lambda x: x.permute(1, 0, 2))
    add("reverse", "axis", lambda x: tf.reverse(x, [1, -1]), [(2, 3, 4)], lambda x: x.flip(1, 2))
    add("expand_dims", "1", lambda x: tf.expand_dims(x, 1), [(3, 4)], lambda x: x.unsqueeze(1))
    add("squeeze", "all", tf.squeeze, [(1, 3, 1)], torch.squeeze)
    add("concat", "axis=1", lambda a, b: tf.concat([a, b], 1), [(2, 3), (2, 2)],
        lambda a, b: torch.cat([a, b], 1))
    add("stack", "axis=1", lambda a, b: tf.stack([a, b], 1), [(2, 3), (2, 3)],
        lambda a, b: torch.stack([a, b], 1))
    add("split", "sizes", lambda x: create_op("split", x, sizes=(1, -1), axis=1), [(2, 4)],
        lambda x: tuple(torch.split(x, [1, 3], 1)))
    add("unstack", "axis=0", lambda x: create_op("unstack", x, num=3, axis=0), [(3, 2)],
        lambda x: tuple(torch.unbind(x)))
    add("_concat_backward", "axis=1", lambda g, a, b: create_op(
        "_concat_backward", g, a, b, num_args=2, axis=1), [(2, 5), (2, 2), (2, 3)],
        lambda g, a, b: tuple(torch.split(g, [2, 3], 1)))
    picked = lambda x: x[1:, [3, 1]]  # x[1:, ::-2] of a (3, 4) x
    add("strided_slice", "negative-step", lambda x: x[1:, ::-2], [(3, 4)], picked)
    add("_strided_slice_backward", "negative-step", lambda g, like: create_op(
        "_strided_slice_backward", g, like, **(like[1:, ::-2]).node.attrs),
        ref=torch_vjp(picked, [0]), inputs=with_head(picked, (3, 4)))
    gathered = lambda p: p[[2, 0, 2]]
    add("gather", "repeated", lambda p: tf.gather(p, [2, 0, 2]), [(3, 4)], gathered)
    add("_gather_backward", "repeated", lambda g, like: create_op(
        "_gather_backward", g, tf.constant([2, 0, 2], dtype=tf.int32), like),
        ref=torch_vjp(gathered, [0]), inputs=with_head(gathered, (3, 4)))
    add("tile", "2x3", lambda x: tf.tile(x, [2, 3]), [(2, 3)], lambda x: x.repeat(2, 3))
    tiled = lambda x: x.repeat(2, 1, 3)
    add("_tile_backward", "2x1x3", lambda g, like: create_op(
        "_tile_backward", g, like, multiples=(2, 1, 3)),
        ref=torch_vjp(tiled, [0]), inputs=with_head(tiled, (2, 2, 3)))
    for op in ("shape_of", "size_of", "rank_of"):
        add(op, "3d", lambda x, op=op: create_op(op, x), [(2, 3, 4)], lambda x, op=op: torch.tensor(
            {"shape_of": x.shape, "size_of": x.numel(), "rank_of": x.dim()}[op], dtype=F64))
    add("one_hot", "depth=4", lambda: tf.one_hot([1, 0, 3, 5], 4),
        ref=lambda: F.pad(F.one_hot(torch.tensor([1, 0, 3]), 4), (0, 0, 0, 1)).to(F64))
    add("fill", "2x3", lambda: tf.fill([2, 3], 1.5), ref=lambda: torch.full((2, 3), 1.5, dtype=F64))
    add("fill_like", "int64", lambda x: tf.ones_like(x, dtype=tf.int64), [(2, 3)],
        torch.ones_like)
    add("range", "floats", lambda: tf.range(1.0, 3.0, 0.5),
        ref=lambda: torch.arange(1.0, 3.0, 0.5, dtype=F64))


def _argmax_of(op, pooled):
    """max_pool2d's hidden argmax output (its backward's third input); nothing for avg_pool2d."""
    if op != "max_pool2d":
        return []
    return [Symbol([NodeEntry(pooled.outputs[0].node, 1)])]


def _tf_nn_cases(add):
    """tf.nn's ops of tinyflow/ops/nn.py (class ids and indices given as floats)."""
    add("bias_add", "NHWC", tf.nn.bias_add, [(2, 3, 4), (4,)], lambda x, b: x + b)
    add("bias_add", "NCHW", lambda x, b: tf.nn.bias_add(x, b, data_format="NCHW"),
        [(2, 3, 4, 5), (3,)], lambda x, b: x + b.view(3, 1, 1))
    for data_format, dims in (("NHWC", (0, 1, 2)), ("NCHW", (0, 2, 3))):
        add("_bias_add_backward", data_format, lambda g, b, f=data_format: create_op(
            "_bias_add_backward", g, b, data_format=f), [(2, 3, 4, 3), (3,)],
            lambda g, b, dims=dims: g.sum(dims))
    probabilities = lambda rng, shape=(4, 5), axis=-1: [rng.standard_normal(shape), torch.softmax(
        torch.tensor(rng.standard_normal(shape)), axis).numpy()]
    xent = lambda z, labels, axis=-1: -(labels * torch.log_softmax(z, axis)).sum(axis)
    add("softmax_cross_entropy_with_logits", "v2", lambda z, labels: (
        tf.nn.softmax_cross_entropy_with_logits_v2(labels, z)), ref=xent, inputs=probabilities)
    add("softmax_cross_entropy_with_logits", "v1-axis=0", lambda z, labels: (
        tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=z, dim=0)),
        ref=lambda z, labels: xent(z, labels, 0), wrt=(0,),
        inputs=lambda rng: probabilities(rng, (3, 4), 0))
    sparse = "sparse_softmax_cross_entropy_with_logits"
    sparse_ref = lambda z, labels: F.cross_entropy(z, labels.long(), reduction="none")
    add(sparse, "5x4", lambda z, labels: create_op(sparse, z, labels), ref=sparse_ref,
        inputs=class_ids, wrt=(0,))
    add(sparse, "3d", lambda z, labels: create_op(sparse, z, labels),
        ref=lambda z, labels: -torch.log_softmax(z, -1).gather(-1, labels.long()[..., None])[
            ..., 0], inputs=lambda rng: [rng.standard_normal((2, 3, 4)),
                                         rng.integers(0, 4, (2, 3))], wrt=(0,))
    add(f"_{sparse}_backward", "5x4", lambda g, z, labels: create_op(
        f"_{sparse}_backward", g, z, labels),
        ref=lambda g, z, labels: torch_vjp(sparse_ref, [0])(g, z, labels),
        inputs=lambda rng: [rng.standard_normal(5), *class_ids(rng)], wrt=(0, 1))
    ids = lambda rng: [rng.standard_normal((5, 3)), [[0, 4, 2], [4, 4, 1]]]
    add("embedding_lookup", "2x3-ids", lambda params, i: create_op("embedding_lookup", params, i),
        ref=lambda params, i: params[i.long()], inputs=ids, wrt=(0,))
    add("_embedding_lookup_backward", "2x3-ids", lambda g, params, i: create_op(
        "_embedding_lookup_backward", g, params, i),
        ref=lambda g, params, i: torch.zeros_like(params).index_add_(
            0, i.long().flatten(), g.reshape(-1, 3)),
        inputs=lambda rng: [rng.standard_normal((2, 3, 3)), *ids(rng)], wrt=(0, 1))
    for k in (1, 2):
        add("in_top_k", f"k={k}-ties", lambda p, t, k=k: tf.nn.in_top_k(p, t, k),
            ref=lambda p, t, k=k: ((p > p.gather(1, t.long()[:, None])).sum(1) < k).to(F64),
            inputs=lambda rng: [[[0.1, 0.5, 0.5, 0.2], [0.3, 0.2, 0.1, 0.0],
                                 [0.9, 0.9, 0.9, 0.1]], [2, 1, 0]])


def torch_prod(x, dim, keepdim=False):
    dims = (dim,) if isinstance(dim, int) else dim
    for d in sorted((d % x.dim() for d in dims), reverse=True):
        x = x.prod(d, keepdim=keepdim)
    return x


def _math_cases(add):
    """TF's math ops (tinyflow/ops/math.py, reduce.py); integer and bool cases in
    tests/test_tf_math.py."""
    for op, api, function in (("maximum", tf.maximum, torch.maximum),
                              ("minimum", tf.minimum, torch.minimum),
                              ("mod", tf.mod, torch.remainder)):
        for a, b in (((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4))):
            add(op, f"{a}-{b}", api, (a, b), function, positive=op == "mod")
    add("floordiv", "broadcast", tf.floordiv, ((3, 4), (4,)),
        lambda a, b: torch.div(a, b, rounding_mode="floor"), positive=True)
    add("rsqrt", "2d", tf.rsqrt, [(3, 4)], torch.rsqrt, positive=True)
    add("log1p", "2d", tf.log1p, [(3, 4)], torch.log1p, positive=True)
    add("cast", "float64", lambda x: tf.cast(x, tf.float64), [(3, 4)], lambda x: x * 1)
    add("cast", "int32", tf.to_int32, [(3, 4)], torch.trunc, check_gradient=False)
    for op, api, function in (("not_equal", tf.not_equal, torch.ne), ("less", tf.less, torch.lt),
                              ("less_equal", tf.less_equal, torch.le),
                              ("greater", tf.greater, torch.gt),
                              ("greater_equal", tf.greater_equal, torch.ge)):
        add(op, "broadcast", api, ref=function,
            inputs=lambda rng: [rng.integers(0, 3, (3, 4)), rng.integers(0, 3, 4)])
    for op, api, function in (("logical_and", tf.logical_and, torch.logical_and),
                              ("logical_or", tf.logical_or, torch.logical_or)):
        add(op, "broadcast", lambda a, b, api=api: api(a > 0, b > 0), [(3, 4), (4,)],
            lambda a, b, f=function: f(a > 0, b > 0))
    add("logical_not", "2d", lambda x: tf.logical_not(x > 0), [(3, 4)],
        lambda x: torch.logical_not(x > 0))
    add("where", "same-shape", lambda c, a, b: tf.where(c > 0, a, b), [(3, 4)] * 3,
        lambda c, a, b: torch.where(c > 0, a, b), wrt=(1, 2))
    add("where", "rows", lambda c, a, b: tf.where(c > 0, a, b), [(3,), (3, 2), (3, 2)],
        lambda c, a, b: torch.where(c[:, None] > 0, a, b), wrt=(1, 2))
    add("_constant_like", "int", lambda x: create_op("_constant_like", x, value=(1, 2),
                                                     shape=(2,)),
        [(3,)], lambda x: torch.tensor([1.0, 2.0], dtype=F64))
    for axis in (None, 1, (0, 2), ()):
        for keepdims in (False, True):
            add("reduce_min", f"axis={axis}-keepdims={keepdims}",
                lambda x, a=axis, k=keepdims: tf.reduce_min(x, axis=a, keepdims=k), [(2, 3, 4)],
                torch_reduce(torch.amin, axis, keepdims))
            add("reduce_prod", f"axis={axis}-keepdims={keepdims}",
                lambda x, a=axis, k=keepdims: tf.reduce_prod(x, axis=a, keepdims=k),
                [(2, 3, 4)], torch_reduce(torch_prod, axis, keepdims))
    for op, api, function in (("reduce_any", tf.reduce_any, torch.any),
                              ("reduce_all", tf.reduce_all, torch.all)):
        for axis in (None, 1):
            add(op, f"axis={axis}", lambda x, api=api, a=axis: api(x > 0, axis=a), [(3, 4)],
                lambda x, f=function, a=axis: f(x > 0) if a is None else f(x > 0, a))
    for axis in (None, (1,), (0, 2)):
        prod = lambda x, a=axis: torch_reduce(torch_prod, a, False)(x)
        add("_reduce_prod_backward", f"axis={axis}", lambda g, x, a=axis: create_op(
            "_reduce_prod_backward", g, x, axis=a), ref=torch_vjp(prod, [0]),
            inputs=with_head(prod, (2, 3, 4)))
    for axis, shape in ((0, (3, 4)), (-1, (3, 4)), (1, (2, 3, 4))):
        add("argmin", f"axis={axis}-{shape}", lambda x, axis=axis: tf.argmin(x, axis=axis),
            [shape], lambda x, axis=axis: torch.argmin(x, dim=axis))


def _case_modules():
    """tests/op_cases_*.py: more of the table, one module per group of ops, each with
    ``add_cases(add)`` and optionally ``SPECIAL_TESTS``: op -> tests written out for it, each
    as ``"test_<file>.py::test_<name>"``."""
    return [importlib.import_module(path.stem)
            for path in sorted(Path(__file__).parent.glob("op_cases_*.py"))]


def _cases():
    cases = []

    def add(op, label, build, shapes=(), ref=None, **kw):
        cases.append(Case(op, label, build, tuple(shapes), ref, **kw))

    # -- binary, with numpy broadcasting ------------------------------------------------
    broadcasts = [((3, 4), (3, 4)), ((3, 4), (4,)), ((4,), (3, 4)), ((3, 1), (1, 4)),
                  ((2, 3, 4), (3, 1))]
    binary = {"elemwise_add": (lambda a, b: a + b, tf.add, False),
              "elemwise_sub": (lambda a, b: a - b, tf.subtract, False),
              "elemwise_mul": (lambda a, b: a * b, tf.multiply, False),
              "elemwise_div": (lambda a, b: a / b, tf.divide, False),
              "elemwise_pow": (lambda a, b: a ** b, None, True)}
    for op, (function, api, positive) in binary.items():
        for a, b in broadcasts:
            add(op, f"{a}-{b}", function, (a, b), function, positive=positive)
        if api is not None:
            add(op, "api", api, ((2, 3), (2, 3)), function)
    add("elemwise_div", "negative-denominator", lambda a, b: a / b, ((3, 4), (4,)),
        lambda a, b: a / b, inputs=lambda rng: [rng.standard_normal((3, 4)),
                                                -rng.uniform(0.5, 1.5, 4)])
    equal_inputs = lambda rng: [rng.integers(0, 3, (3, 4)), rng.integers(0, 3, 4)]
    add("equal", "broadcast", tf.equal, ref=lambda a, b: (a == b).to(F64), inputs=equal_inputs)
    add("equal", "same-shape", tf.equal, ref=lambda a, b: (a == b).to(F64),
        inputs=lambda rng: [rng.integers(0, 2, (2, 5)), rng.integers(0, 2, (2, 5))])
    add("elemwise_sum", "three", lambda a, b, c: tf.add_n([a, b, c]), [(3, 4)] * 3,
        lambda a, b, c: a + b + c)
    add("elemwise_sum", "one", lambda a: tf.add_n([a]), [(3, 4)], lambda a: a * 1)
    add("elemwise_sum", "same-input", lambda a: tf.add_n([a, a, a]), [(2, 3)],
        lambda a: a + a + a)

    # -- with a scalar, on both sides ---------------------------------------------------
    scalars = [
        ("__add_scalar__", "x+3", lambda x: x + 3, False),
        ("__add_scalar__", "3+x", lambda x: 3 + x, False),
        ("__sub_scalar__", "x-3", lambda x: x - 3, False),
        ("__rsub_scalar__", "3-x", lambda x: 3 - x, False),
        ("__mul_scalar__", "x*2.5", lambda x: x * 2.5, False),
        ("__mul_scalar__", "2.5*x", lambda x: 2.5 * x, False),
        ("__div_scalar__", "x/4", lambda x: x / 4, False),
        ("__rdiv_scalar__", "4/x", lambda x: 4 / x, True),
        ("__rdiv_scalar__", "4/negative-x", lambda x: 4 / x, False),
        ("__pow_scalar__", "x**2", lambda x: x ** 2, False),
        ("__pow_scalar__", "x**3", lambda x: x ** 3, False),
        ("__pow_scalar__", "x**0.5", lambda x: x ** 0.5, True),
        ("__pow_scalar__", "square", tf.square, False),
        ("__rpow_scalar__", "2**x", lambda x: 2 ** x, False),
        ("__rpow_scalar__", "0.5**x", lambda x: 0.5 ** x, False),
        ("negative", "-x", lambda x: -x, False),
    ]
    for op, label, function, positive in scalars:
        ref = (lambda x: x ** 2) if function is tf.square else function
        add(op, label, function, [(3, 4)], ref, positive=positive)
    add("__rsub_scalar__", "numpy-scalar-3-x", lambda x: np.float32(3) - x, [(3, 4)],
        lambda x: 3 - x)

    # -- unary --------------------------------------------------------------------------
    unary = [("exp", tf.exp, torch.exp, False), ("log", tf.log, torch.log, True),
             ("sqrt", tf.sqrt, torch.sqrt, True), ("tanh", tf.tanh, torch.tanh, False),
             ("sigmoid", tf.sigmoid, torch.sigmoid, False), ("abs", tf.abs, torch.abs, False),
             ("negative", tf.negative, torch.neg, False),
             ("relu", tf.nn.relu, torch.relu, False),
             ("copy", lambda x: create_op("copy", x), lambda x: x.clone(), False),
             ("stop_gradient", tf.stop_gradient, lambda x: x.clone(), False),
             ("zeros_like", tf.zeros_like, torch.zeros_like, False),
             ("ones_like", tf.ones_like, torch.ones_like, False)]
    for op, function, ref, positive in unary:
        add(op, "2d", function, [(3, 4)], ref, positive=positive)
    add("tanh", "3d", tf.nn.tanh, [(2, 3, 4)], torch.tanh)
    add("sigmoid", "1d", tf.nn.sigmoid, [(5,)], torch.sigmoid)
    # sign's gradient is zeros (TF); finite differences across its jumps at 0 are not
    add("sign", "with-zeros", lambda x: create_op("sign", x), ref=torch.sign,
        inputs=lambda rng: [[[-2.0, 0.0, 3.0], [0.5, -0.1, 0.0]]], check_gradient=False)
    add("sign", "away-from-zero", lambda x: create_op("sign", x), ref=torch.sign,
        inputs=lambda rng: [[[-2.0, 1.0, 3.0], [0.5, -0.7, -1.5]]])
    add("relu", "with-zeros", tf.nn.relu, ref=torch.relu,
        inputs=lambda rng: [[[-2.0, 0.0, 3.0], [0.5, -0.1, 0.0]]], check_gradient=False)

    # -- reductions ---------------------------------------------------------------------
    reductions = {"reduce_sum": (tf.reduce_sum, torch.sum),
                  "reduce_mean": (tf.reduce_mean, torch.mean),
                  "reduce_max": (tf.reduce_max, torch.amax)}
    axes = [None, 1, (0, 2), -1, (-1, 0), ()]
    for op, (api, function) in reductions.items():
        for axis in axes:
            for keepdims in (False, True):
                add(op, f"axis={axis}-keepdims={keepdims}",
                    lambda x, api=api, axis=axis, k=keepdims: api(x, axis=axis, keepdims=k),
                    [(2, 3, 4)], torch_reduce(function, axis, keepdims))
        add(op, "reduction_indices", lambda x, api=api: api(x, reduction_indices=[1]),
            [(3, 4)], torch_reduce(function, (1,), False))
        add(op, "1d-to-scalar", api, [(5,)], torch_reduce(function, None, False))
    add("reduce_max", "tie", tf.reduce_max, ref=torch_reduce(torch.amax, None, False),
        inputs=lambda rng: [[[1.0, 3.0], [3.0, -1.0]]], check_gradient=False)
    for axis, shape in ((0, (3, 4)), (1, (3, 4)), (-1, (3, 4)), (1, (2, 3, 4)), (0, (5,))):
        add("argmax", f"axis={axis}-{shape}", lambda x, axis=axis: tf.argmax(x, axis=axis),
            [shape], lambda x, axis=axis: torch.argmax(x, dim=axis).to(F64))

    # -- matrix and shape ---------------------------------------------------------------
    # (3, 4, 5): the plain kernel; (40, 6, 3): a result with few columns (transposed scratch)
    for (m, k, n), ta, tb in itertools.product(((3, 4, 5), (40, 6, 3)), (False, True),
                                               (False, True)):
        add("matmul", f"{m}x{k}x{n}-transpose_a={ta}-transpose_b={tb}",
            lambda a, b, ta=ta, tb=tb: tf.matmul(a, b, transpose_a=ta, transpose_b=tb),
            [(k, m) if ta else (m, k), (n, k) if tb else (k, n)],
            lambda a, b, ta=ta, tb=tb: (a.t() if ta else a) @ (b.t() if tb else b))
    for shape, target in (((3, 4), (2, 6)), ((3, 4), (-1,)), ((2, 3, 4), (4, -1)),
                          ((2, 6), (2, 3, 2)), ((5,), (1, 5))):
        add("reshape", f"{shape}-to-{target}", lambda x, t=target: tf.reshape(x, t), [shape],
            lambda x, t=target: x.reshape(t))
    add("reshape_like", "12", lambda x, like: create_op("reshape_like", x, like),
        [(3, 4), (2, 6)], lambda x, like: x.reshape(like.shape))
    for shape, dim, pad in (((3, 4), 1, -2), ((3, 4), 1, 2), ((3, 4), 0, 3), ((3, 4), -1, -1),
                            ((2, 3, 4), 1, -2), ((3, 4), 0, 0)):
        add("pad", f"{shape}-dim={dim}-pad={pad}", lambda x, d=dim, p=pad: tf.pad(x, d, p),
            [shape], lambda x, d=dim, p=pad: torch_pad(x, d, p))
    for shape, dim, pad in (((3, 7), 1, -3), ((3, 7), 1, 3), ((5, 4), -2, 2), ((2, 5, 3), 1, -1)):
        size = shape[dim] - abs(pad)
        start = -pad if pad < 0 else 0
        add("_pad_backward", f"{shape}-dim={dim}-pad={pad}",
            lambda g, d=dim, p=pad: create_op("_pad_backward", g, dim=d, pad=p), [shape],
            lambda g, d=dim, s=start, n=size: g.narrow(d, s, n))

    _array_cases(add)

    # -- broadcasting helpers of the gradient rules ------------------------------------
    for x, like, axis, mean in (((4,), (3, 4), None, False), ((3, 1), (3, 4), None, False),
                                ((3,), (3, 4), (1,), False), ((2, 4), (2, 3, 4), 1, False),
                                ((2, 3), (2, 3, 4), -1, False), ((), (2, 3), None, False),
                                ((3,), (2, 3, 4), (0, 2), True), ((3, 1), (3, 4), None, True)):
        add("broadcast_like", f"{x}-to-{like}-axis={axis}-mean={mean}",
            lambda a, b, axis=axis, mean=mean: create_op("broadcast_like", a, b, axis=axis,
                                                         mean=mean),
            [x, like], lambda a, b, axis=axis, mean=mean: torch_broadcast_like(a, b, axis, mean))
    for g, like in (((2, 3, 4), (3, 1)), ((3, 4), (4,)), ((3, 4), (3, 4)), ((3, 4), ()),
                    ((3, 4), (3, 1))):
        add("_collapse_sum_like", f"{g}-to-{like}",
            lambda a, b: create_op("_collapse_sum_like", a, b), [g, like],
            lambda a, b: a.sum_to_size(b.shape))
    add("_scale_like", "5/6", lambda x, a, b: create_op("_scale_like", x, a, b),
        [(3, 4), (2, 3), (5,)], lambda x, a, b: x * b.numel() / a.numel())

    # -- neural network -----------------------------------------------------------------
    for op, api, function in (("softmax", tf.nn.softmax, torch.softmax),
                              ("log_softmax", tf.nn.log_softmax, torch.log_softmax)):
        add(op, "default-axis", api, [(3, 5)], lambda x, f=function: f(x, -1))
        add(op, "axis=0", lambda x, api=api: api(x, axis=0), [(3, 5)],
            lambda x, f=function: f(x, 0))
        add(op, "3d-axis=1", lambda x, api=api: api(x, axis=1), [(2, 3, 4)],
            lambda x, f=function: f(x, 1))
    for axis, shape in ((-1, (3, 5)), (0, (3, 5)), (1, (2, 3, 4))):
        add("_softmax_backward", f"axis={axis}",
            lambda g, y, axis=axis: create_op("_softmax_backward", g, y, axis=axis),
            ref=lambda g, y, axis=axis: y * (g - (g * y).sum(axis, keepdim=True)),
            inputs=lambda rng, axis=axis, shape=shape: softmax_values(rng, shape, axis))
        add("_log_softmax_backward", f"axis={axis}",
            lambda g, y, axis=axis: create_op("_log_softmax_backward", g, y, axis=axis),
            ref=lambda g, y, axis=axis: g - y.exp() * g.sum(axis, keepdim=True),
            inputs=lambda rng, axis=axis, shape=shape: softmax_values(rng, shape, axis, True))
    add("_tanh_backward", "2d", lambda g, y: create_op("_tanh_backward", g, y), [(3, 4), (3, 4)],
        ref=lambda g, y: g * (1 - y * y))
    add("_sigmoid_backward", "2d", lambda g, y: create_op("_sigmoid_backward", g, y),
        [(3, 4), (3, 4)], ref=lambda g, y: g * y * (1 - y))
    add("_relu_backward", "with-zeros", lambda g, y: create_op("_relu_backward", g, y),
        ref=lambda g, y: torch.where(y > 0, g, torch.zeros_like(g)),
        inputs=lambda rng: [rng.standard_normal((3, 4)),
                            np.maximum(rng.standard_normal((3, 4)), 0)], wrt=(0,))  # y at 0
    add("_relu_backward", "signed", lambda g, y: create_op("_relu_backward", g, y),
        [(3, 4), (3, 4)], ref=lambda g, y: torch.where(y > 0, g, torch.zeros_like(g)))

    _layer_cases(add)
    _math_cases(add)
    _tf_nn_cases(add)
    for module in _case_modules():
        module.add_cases(add)

    # -- without inputs -----------------------------------------------------------------
    table = np.arange(6, dtype=np.float32).reshape(2, 3) / 4 - 0.5
    add("constant", "2d", lambda: tf.constant(table), ref=lambda: torch.tensor(table, dtype=F64))
    add("constant", "scalar", lambda: tf.constant(2.5), ref=lambda: torch.tensor(2.5, dtype=F64))
    add("constant", "broadcast", lambda: tf.constant([1.0, 2.0, 3.0], shape=(2, 3)),
        ref=lambda: torch.tensor([1.0, 2.0, 3.0], dtype=F64).expand(2, 3))
    add("zeros", "2d", lambda: tf.zeros([2, 3]), ref=lambda: torch.zeros(2, 3, dtype=F64))
    add("zeros", "int-shape", lambda: tf.zeros(4), ref=lambda: torch.zeros(4, dtype=F64))
    add("ones", "2d", lambda: tf.ones([3, 1]), ref=lambda: torch.ones(3, 1, dtype=F64))
    return cases


CASES = _cases()
GRADIENT_CASES = [c for c in CASES if c.op in differentiable_ops() and c.check_gradient]
# Ops whose tests are written out below rather than driven by the table.
SPECIAL_TESTS = {"assign": ["test_assign", "test_assign_reads_see_the_old_value"],
                 **{op: ["test_premade_estimators.py::test_vocabulary_lookups_in_a_session"]
                    for op in ("index_to_string", "string_to_index")},
                 "normal": ["test_random_statistics"], "uniform": ["test_random_statistics"],
                 "truncated_normal": ["test_random_statistics"],  # more: test_tf_random.py
                 "dropout": ["test_dropout"], "no_op": ["test_no_op"],
                 "_variable_init": ["test_variable_init"],
                 "sgd_update": ["test_update_ops"], "momentum_update": ["test_update_ops"],
                 "adam_update": ["test_update_ops"],
                 "assign_add": ["test_assign_add_sub"], "assign_sub": ["test_assign_add_sub"],
                 "adagrad_update": ["test_tf_update_ops_first_step"],
                 "rmsprop_update": ["test_tf_update_ops_first_step"],
                 "centered_rmsprop_update": ["test_tf_update_ops_first_step"],
                 "adadelta_update": ["test_tf_update_ops_first_step"],  # more: test_train.py
                 **{op: ["test_train.py::test_proximal_and_ftrl_steps_as_tensorflows"]
                    for op in ("proximal_sgd_update", "proximal_adagrad_update",
                               "ftrl_update")},
                 # TF's sparse updates (IndexedSlices gradients), against real TF's numbers
                 **{f"sparse_{op}": [
                     "test_sparse_optimizers.py::test_sparse_updates_as_tensorflows"]
                    for op in ("sgd_update", "momentum_update", "adam_update", "rmsprop_update",
                               "centered_rmsprop_update", "adagrad_update", "adadelta_update",
                               "proximal_sgd_update", "proximal_adagrad_update",
                               "ftrl_update")},
                 # random draws: their laws and TF's expected counts, tested there
                 "log_uniform_candidate_sampler": [
                     "test_sampled_losses.py::test_samplers_draw_as_tensorflow"],
                 "uniform_candidate_sampler": [
                     "test_sampled_losses.py::test_samplers_draw_as_tensorflow"],
                 "fixed_unigram_candidate_sampler": [
                     "test_sampled_losses.py::test_fixed_unigram_sampler_as_tensorflow"],
                 # its values and gradients are the program's rule's, tested there
                 "custom_gradient": [
                     "test_custom_gradient.py::test_log1pexp_value_and_its_stable_gradient",
                     "test_custom_gradient.py::test_several_args_and_results"],
                 "dynamic_stitch": [  # sized when it runs
                     "test_partition_gather.py::test_dynamic_stitch_values_and_gradients",
                     ("test_partition_gather.py::"
                      "test_dynamic_stitch_last_writer_wins_and_undoes_a_partition")],
                 "shaped_by_value": [  # shapes computed from tensors, folded at bind
                     "test_feeds.py::test_shapes_from_tensors_per_feed_shape",
                     "test_feeds.py::test_shaped_by_value_gradients_against_finite_differences"]}
for _module in _case_modules():
    SPECIAL_TESTS.update(getattr(_module, "SPECIAL_TESTS", {}))


def test_no_op(plan_memory):
    # runs nothing itself: fetching it runs its control dependencies and gives None
    v = tf.Variable(tf.constant([1.0, 2.0]))
    with tf.control_dependencies([tf.assign_add(v, [1.0, 1.0])]):
        step = tf.no_op(name="step")
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    assert sess.run(step) is None and sess.run("step") is None
    np.testing.assert_array_equal(sess.run(v), [3.0, 4.0])


def test_assign_add_sub(plan_memory):
    v = tf.Variable(tf.constant([1.0, 2.0]))
    n = tf.Variable(tf.constant(5, dtype=tf.int64))
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    np.testing.assert_array_equal(sess.run(tf.assign_add(v, [0.5, 0.5])), [1.5, 2.5])
    np.testing.assert_array_equal(sess.run(tf.assign_sub(v, [1.0, 1.0])), [0.5, 1.5])
    assert sess.run(tf.assign_add(n, tf.constant(2, dtype=tf.int64))) == 7


def _first_steps(g, lr):
    """var - new var after one step from TF 1.15's slot initial values (training_ops.cc)."""
    ms = 0.9 * 1.0 + 0.1 * g * g
    accum = 0.05 * g * g
    update = np.sqrt(0.0 + 1e-8) / np.sqrt(accum + 1e-8) * g
    return {"adagrad": lr * g / np.sqrt(0.1 + g * g),
            "rmsprop": lr * g / np.sqrt(ms + 1e-10),
            "centered": lr * g / np.sqrt(ms - (0.1 * g) ** 2 + 1e-10),
            "adadelta": lr * update}


@pytest.mark.parametrize("kind", ["adagrad", "rmsprop", "centered", "adadelta"])
def test_tf_update_ops_first_step(kind, plan_memory):
    optimizers = {"adagrad": lambda: tf.train.AdagradOptimizer(0.1),
                  "rmsprop": lambda: tf.train.RMSPropOptimizer(0.1),
                  "centered": lambda: tf.train.RMSPropOptimizer(0.1, centered=True),
                  "adadelta": lambda: tf.train.AdadeltaOptimizer(0.1)}
    x = np.array([0.5, -1.5, 2.0], np.float32)
    w = tf.Variable(tf.ones([3]))
    step = optimizers[kind]().minimize(tf.reduce_sum(w * tf.constant(x)))
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    sess.run(step)
    np.testing.assert_allclose(1.0 - sess.run(w), _first_steps(x.astype(np.float64), 0.1)[kind],
                               rtol=1e-4, atol=1e-7)  # 1 - w: float32 rounding near 1


@pytest.fixture(scope="module")
def builtin(programs):
    """The ops ``import tinyflow`` registers, read in a process of its own (forked from one
    that imported tinyflow and registered nothing more) so that ops other tests register in
    this process do not count."""
    code = "import tinyflow, tinyflow.nnvm as nnvm; print(' '.join(nnvm.list_ops()))"
    result = programs.run([sys.executable, "-c", code])
    assert result.returncode == 0, result.stderr
    return set(result.stdout.split())


def test_every_op_has_a_spec(builtin):
    assert builtin, "no op registered?"
    covered = {c.op for c in CASES} | set(SPECIAL_TESTS)
    missing = sorted(builtin - covered)
    assert not missing, (f"registered op(s) {missing} have no test case: add them to _cases() "
                         f"in {__file__} (or to SPECIAL_TESTS with a dedicated test)")
    stale = sorted(covered - builtin)
    assert not stale, f"test cases for ops that are not registered: {stale}"
    for tests in SPECIAL_TESTS.values():
        for test in tests:
            file, _, name = test.rpartition("::")
            found = (f"def {name}(" in (Path(__file__).parent / file).read_text() if file
                     else callable(globals().get(name)))
            assert found, f"SPECIAL_TESTS names a missing test {test}"


def test_every_gradient_rule_is_checked(builtin):
    # An op with a real gradient rule needs a case with inputs, so check_gradients runs it
    # (or a dedicated test, for random ops).
    checked = {c.op for c in GRADIENT_CASES} | set(SPECIAL_TESTS)
    # (built-in ones: other test files register ops of their own in this process)
    unchecked = sorted(set(differentiable_ops()) & builtin - checked)
    assert not unchecked, f"gradient rule(s) of {unchecked} are not checked by any case"


def test_cases_build_their_op():
    for case in CASES:
        xs = [tf.placeholder(shape=v.shape) for v in case.values()]
        built = case.build(*xs).outputs[0].node.op.name
        assert built == case.op, f"case {case.id} builds {built}"


# -- forward ---------------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_forward(case, plan_memory, config):
    values = case.values()
    xs = [tf.placeholder(shape=v.shape) for v in values]
    out = case.build(*xs)
    outs = [Symbol([entry]) for entry in out.outputs]  # out[i] slices a one-output symbol
    with tf.Session(config, plan_memory=plan_memory) as sess:
        got = sess.run(outs, dict(zip(xs, values)))
        again = sess.run(outs, dict(zip(xs, values)))  # the cached executor gives the same
    expected = as_tuple(case.ref(*[torch.tensor(v, dtype=F64) for v in values]))
    assert len(got) == len(expected), f"{case.id}: {len(got)} outputs"
    for i, (value, want) in enumerate(zip(got, expected)):
        want = want.detach().numpy()
        assert np.shape(value) == want.shape, f"{case.id} output {i}: shape {np.shape(value)}"
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-5,
                                   err_msg=f"{case.id} output {i}")
        if config == "cpu":
            np.testing.assert_array_equal(again[i], value)
        else:  # CUDA's atomic adds (overlapping pooling windows' gradients) sum in any order
            np.testing.assert_allclose(again[i], value, rtol=1e-6, atol=1e-7)


# -- gradients -------------------------------------------------------------------------------
@pytest.mark.parametrize("case", GRADIENT_CASES, ids=lambda c: c.id)
def test_gradient(case, plan_memory, config):
    # finite differences once, planned; both plans' gradients against autograd's (stricter)
    report = check_gradients(case.build, inputs=case.values(), wrt=case.wrt, eps=case.eps,
                             plan_memory=plan_memory, config=config, name=case.id,
                             finite_differences=plan_memory)
    xs = [torch.tensor(v, dtype=F64, requires_grad=True) for v in report.inputs]
    outs = as_tuple(case.ref(*xs))
    heads = [torch.tensor(h, dtype=F64) for h in report.head_grads]
    expected = torch.autograd.grad(outs, xs, heads, allow_unused=True)
    for i in report.symbolic:
        g = torch.zeros_like(xs[i]) if expected[i] is None else expected[i]
        np.testing.assert_allclose(report.symbolic[i], g.numpy(), rtol=1e-4, atol=1e-5,
                                   err_msg=f"{case.id}: gradient of input {i} vs torch autograd")


@pytest.mark.parametrize("case", [c for c in CASES if (c.shapes or c.inputs)
                                  and c.op not in differentiable_ops()], ids=lambda c: c.id)
def test_ops_without_gradient_rule(case):
    # no_gradient stops the gradient; an op without FGradient refuses to be differentiated.
    rule = Op.get(case.op).attr("FGradient")
    xs = [tf.placeholder(shape=v.shape) for v in case.values()]
    out = case.build(*xs)
    if rule is no_gradient:
        assert tf.gradients(out, xs) == [None] * len(xs)
    else:
        with pytest.raises(GraphError, match=case.op):
            tf.gradients(out, xs)


def test_check_gradients_by_op_name():
    report = check_gradients("elemwise_mul", [(3, 4), (4,)], seed=3)
    assert [v.shape for v in report.inputs] == [(3, 4), (4,)]
    np.testing.assert_allclose(report.symbolic[1], report.numeric[1], rtol=1e-3, atol=1e-4)
    check_gradients("softmax", [(2, 5)], {"axis": 0})
    check_gradients("log", [(6,)], positive=True)


def test_check_gradients_catches_a_wrong_rule():
    op = Op.get("tanh")
    rule = op.attr("FGradient")
    op.set_attr("FGradient", lambda n, g: [g[0] * n.outputs[0]], overwrite=True)
    try:
        with pytest.raises(AssertionError, match=r"op tanh, input 0 .*max abs error"):
            check_gradients("tanh", [(3, 4)])
    finally:
        op.set_attr("FGradient", rule, overwrite=True)
    check_gradients("tanh", [(3, 4)])


# -- ops with state or randomness ----------------------------------------------------------
def test_assign(plan_memory):
    w = tf.Variable(tf.zeros([3, 4]))
    x = tf.placeholder(shape=(3, 4))
    value = np.arange(12, dtype=np.float32).reshape(3, 4)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(w), np.zeros((3, 4)))
        np.testing.assert_array_equal(sess.run(tf.assign(w, x), {x: value}), value)
        np.testing.assert_array_equal(sess.run(w), value)
        step = tf.assign(w, w * 2 + 1)
        sess.run(step)
        np.testing.assert_array_equal(sess.run(step), (value * 2 + 1) * 2 + 1)
        np.testing.assert_array_equal(sess.run(w), (value * 2 + 1) * 2 + 1)


def test_assign_reads_see_the_old_value(plan_memory):
    w = tf.Variable(tf.ones([2, 3]))
    total = tf.reduce_sum(w * 1)
    update = tf.assign(w, w + 1)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        old, new = sess.run([total, update])
        assert old == 6
        np.testing.assert_array_equal(new, np.full((2, 3), 2.0))
        assert sess.run(total) == 12


def _adam_reference(var, m, v, grad, beta1_power, beta2_power, lr, beta1, beta2, epsilon):
    # TensorFlow's ApplyAdam (training_ops.cc): epsilon after the bias correction
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad * grad
    rate = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    return var - rate * m / (np.sqrt(v) + epsilon), m, v


def _momentum_reference(var, accum, grad, lr, momentum, nesterov):
    accum = momentum * accum + grad
    return var - lr * (grad + momentum * accum if nesterov else accum), accum


UPDATES = {  # op: (number of state inputs, attrs, numpy twin of one step)
    "sgd_update": (1, {"lr": 0.3}, lambda var, grad, lr: (var - lr * grad,)),
    "momentum_update": (2, {"lr": 0.3, "momentum": 0.9, "nesterov": False},
                        _momentum_reference),
    "nesterov": (2, {"lr": 0.3, "momentum": 0.9, "nesterov": True}, _momentum_reference),
    "adam_update": (3, {"lr": 0.1, "beta1": 0.8, "beta2": 0.9, "epsilon": 1e-3},
                    _adam_reference),
}


@pytest.mark.parametrize("name", list(UPDATES))
def test_update_ops(plan_memory, name):
    # Optimizer updates write their variable and slots in place, against the numpy twin; the
    # other readers of the variable in the same run see the value from before the update.
    num_state, attrs, reference = UPDATES[name]
    op = "momentum_update" if name == "nesterov" else name
    rng = np.random.default_rng(1)
    state = [rng.uniform(0.5, 1.5, (3, 4)).astype(np.float32) for _ in range(num_state)]
    variables = [tf.Variable(tf.constant(value)) for value in state]
    grad = tf.placeholder(shape=(3, 4))
    powers = [0.8 ** 2, 0.9 ** 2]  # Adam's beta1_power, beta2_power at its second step
    inputs = variables + [grad] + ([tf.constant(p, shape=()) for p in powers]
                                   if op == "adam_update" else [])
    update = create_op(op, *inputs, **attrs)
    total = tf.reduce_sum(variables[0] * 1)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        expected = [np.float64(s) for s in state]
        for _ in range(2):
            grad_value = rng.standard_normal((3, 4)).astype(np.float32)
            extra = powers if op == "adam_update" else []
            old_total, _ = sess.run([total, update], {grad: grad_value})
            np.testing.assert_allclose(old_total, expected[0].sum(), rtol=1e-5)
            expected = list(reference(*expected, grad_value, *extra, **attrs))
            for variable, value in zip(variables, expected):
                np.testing.assert_allclose(sess.run(variable), value, rtol=1e-5, atol=1e-6)


def test_random_statistics(plan_memory):
    normal = tf.random_normal((200, 200), mean=1.0, stddev=2.0)
    uniform = tf.random_uniform((200, 200), minval=-1.0, maxval=3.0)
    truncated = tf.truncated_normal((200, 200), mean=1.0, stddev=2.0)
    with tf.Session(plan_memory=plan_memory) as sess:
        n1, u1, t1 = sess.run([normal, uniform, truncated])
        n2, u2 = sess.run([normal, uniform])
    assert t1.min() >= -3.0 and t1.max() <= 5.0  # cut at two deviations: std 0.88 * 2
    assert abs(t1.mean() - 1.0) < 0.05 and abs(t1.std() - 2 * 0.8796) < 0.05
    assert n1.shape == u1.shape == (200, 200)
    # 40000 samples: the standard errors are 0.01 (mean) and about 0.007 (std).
    assert abs(n1.mean() - 1.0) < 0.05 and abs(n1.std() - 2.0) < 0.05
    assert abs(np.mean(n1 > 1.0) - 0.5) < 0.02
    assert u1.min() >= -1.0 and u1.max() <= 3.0
    assert abs(u1.mean() - 1.0) < 0.05 and abs(u1.var() - 16 / 12) < 0.05
    assert abs(np.mean(u1 < 0.0) - 0.25) < 0.02
    assert not np.array_equal(n1, n2) and not np.array_equal(u1, u2), "fresh draws each run"
    assert abs(np.corrcoef(n1.ravel(), n2.ravel())[0, 1]) < 0.03


def test_dropout(plan_memory):
    x, keep, head = tf.placeholder(shape=(200, 100)), tf.placeholder(shape=()), \
        tf.placeholder(shape=(200, 100))
    out = create_op("dropout", x, keep)
    y, mask = out[0], out[1]
    (grad,) = tf.gradients(y, x, grad_ys=[head])
    rng = np.random.default_rng(0)
    value, head_value = rng.standard_normal((2, 200, 100)).astype(np.float32)
    feeds = {x: value, keep: 0.8, head: head_value}
    with tf.Session(plan_memory=plan_memory) as sess:
        y1, mask1, grad1 = sess.run([y, mask, grad], feeds)
        y2, mask2 = sess.run([y, mask], feeds)
        y_kept = sess.run(y, {**feeds, keep: 1.0})
        api = sess.run(tf.nn.dropout(x, 0.5), feeds)
    np.testing.assert_allclose(np.unique(mask1), [0.0, 1 / 0.8], rtol=1e-6)
    assert abs(np.mean(mask1 > 0) - 0.8) < 0.015  # 20000 draws: the standard error is 0.003
    np.testing.assert_allclose(y1, value * mask1, rtol=1e-6)
    np.testing.assert_allclose(grad1, head_value * mask1, rtol=1e-6)  # the same run's mask
    np.testing.assert_allclose(y2, value * mask2, rtol=1e-6)
    assert not np.array_equal(mask1, mask2), "a fresh mask every run"
    np.testing.assert_array_equal(y_kept, value)
    assert abs(np.mean(api == 0) - 0.5) < 0.015
    np.testing.assert_allclose(api[api != 0], 2 * value[api != 0], rtol=1e-6)


def test_variable_init(plan_memory):
    # Layers create their weights with _variable_init; the shape comes from the first run.
    x = tf.placeholder(shape=(None, 60))
    hidden = tf.nn.linear(x, 40, name="fc", no_bias=False)
    y = tf.nn.batch_normalization(hidden, name="bn")
    variables = {v.op.name: v for v in tf.all_variables()}
    assert set(variables) == {"fc_weight", "fc_bias", "bn_gamma", "bn_beta"}
    fixed = tf.Variable(tf.zeros([300, 200]))
    normal = tf.assign(fixed, create_op("_variable_init", method="normal", stdev=0.5))
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(y, {x: np.ones((8, 60))})
        values = {name: sess.run(v) for name, v in variables.items()}
        drawn = sess.run(normal)
    assert values["fc_weight"].shape == (40, 60)
    limit = math.sqrt(6 / (60 + 40))  # Glorot-uniform, fans as in PyTorch
    assert np.abs(values["fc_weight"]).max() <= limit
    assert abs(values["fc_weight"].std() - limit / math.sqrt(3)) < 0.02
    np.testing.assert_array_equal(values["fc_bias"], np.zeros(40))
    np.testing.assert_array_equal(values["bn_gamma"], np.ones(40))
    np.testing.assert_array_equal(values["bn_beta"], np.zeros(40))
    assert drawn.shape == (300, 200)
    assert abs(drawn.mean()) < 0.01 and abs(drawn.std() - 0.5) < 0.01


# -- memory planning -------------------------------------------------------------------------
def _chain(x):
    return tf.sigmoid(tf.tanh(tf.exp(-x) * 0.5 + 1.0) - 2.0)


def test_inplace_planning_kicks_in_on_a_unary_chain():
    x = tf.placeholder(shape=(64,))
    y = _chain(x)
    graph = Graph(y.outputs, {"shape_inputs": {x.node: (64,)}})
    graph = apply_passes(graph, ["InferShape", "InferType", "PlanMemory"])
    indexed, storage_id = graph.indexed, graph.attrs["storage_id"]
    op_entries = [e for e in range(indexed.num_entries) if storage_id[e] != EXTERNAL]
    assert len(op_entries) == 7  # negative, exp, *, +, tanh, -, sigmoid
    assert len(graph.attrs["inplace_from"]) == 6
    assert len({storage_id[e] for e in op_entries}) == 1
    # The bound executor really computes in one buffer.
    store = VariableStore()
    executor = Executor(y.outputs, {x.node: (64,)}, store, SessionOptions())
    executor.allocate(store)
    pointers = {executor.tensors[e].data_ptr() for e in op_entries}
    assert len(executor.storages) == 1 and len(pointers) == 1
    unplanned = Executor(y.outputs, {x.node: (64,)}, store, SessionOptions(plan_memory=False))
    unplanned.allocate(store)
    assert len(unplanned.storages) == 7

    value = np.linspace(-2, 2, 64, dtype=np.float32)
    with tf.Session(plan_memory=True) as planned, tf.Session(plan_memory=False) as plain:
        got = planned.run(y, {x: value})
        np.testing.assert_array_equal(got, plain.run(y, {x: value}))
    expected = torch.sigmoid(torch.tanh(torch.exp(-torch.tensor(value)) * 0.5 + 1.0) - 2.0)
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-6)


def _softmax_regression_problem():
    rng = np.random.default_rng(0)
    images = rng.standard_normal((16, 10)).astype(np.float32)
    labels = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 16)]
    w1 = (rng.standard_normal((10, 8)) * 0.3).astype(np.float32)
    w2 = (rng.standard_normal((8, 3)) * 0.3).astype(np.float32)
    return images, labels, w1, w2


def _train_tinyflow(plan_memory, steps=5):
    tf.reset_default_graph()
    images, labels, w1_init, w2_init = _softmax_regression_problem()
    x, y = tf.placeholder(shape=(None, 10)), tf.placeholder(shape=(None, 3))
    w1, w2 = tf.Variable(w1_init), tf.Variable(w2_init)
    logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)
    loss = tf.reduce_mean(-tf.reduce_sum(y * tf.nn.log_softmax(logits), axis=1))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([loss, train], {x: images, y: labels})[0] for _ in range(steps)]
        return losses, sess.run([w1, w2])


def _train_torch(steps=5):
    images, labels, w1, w2 = (torch.tensor(a) for a in _softmax_regression_problem())
    weights = [w1.requires_grad_(), w2.requires_grad_()]
    losses = []
    for _ in range(steps):
        loss = -(labels * torch.log_softmax(torch.relu(images @ w1) @ w2, 1)).sum(1).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for w in weights:
                w -= 0.5 * w.grad
                w.grad = None
    return losses, [w.detach().numpy() for w in weights]


def test_training_is_identical_with_and_without_planning_and_matches_torch():
    planned_losses, planned_weights = _train_tinyflow(True)
    plain_losses, plain_weights = _train_tinyflow(False)
    np.testing.assert_array_equal(planned_losses, plain_losses)
    for a, b in zip(planned_weights, plain_weights):
        np.testing.assert_array_equal(a, b)
    assert planned_losses[-1] < planned_losses[0]
    torch_losses, torch_weights = _train_torch()
    np.testing.assert_allclose(planned_losses, torch_losses, rtol=1e-5)
    for a, b in zip(planned_weights, torch_weights):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_conv2d_channels_last_path_matches_plain():
    # The conv bodies switch to channels-last copies where MKL-DNN is faster on them (timed at
    # setup); both ways must give the same values.
    rng = torch.Generator().manual_seed(0)
    x, weight = torch.randn(4, 6, 9, 9, generator=rng), torch.randn(5, 6, 3, 3, generator=rng)
    bias, g = torch.randn(5, generator=rng), torch.randn(4, 5, 7, 7, generator=rng)
    plain, fast = torch.empty(4, 5, 7, 7), torch.empty(4, 5, 7, 7)
    lua_stride, lua_pad = lua_runtime().table(1, 1), lua_runtime().table(0, 0)
    copies = [torch.empty_like(t, memory_format=torch.channels_last) for t in (x, weight, plain)]
    conv_kernels.conv2d(plain, x, weight, bias, lua_stride, lua_pad)
    conv_kernels.conv2d(fast, x, weight, bias, lua_stride, lua_pad, copies)
    torch.testing.assert_close(fast, plain, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(plain, F.conv2d(x, weight, bias), rtol=1e-5, atol=1e-5)
    plain_w, fast_w = torch.empty_like(weight), torch.empty_like(weight)
    copies = [torch.empty_like(t, memory_format=torch.channels_last) for t in (g, x, weight)]
    conv_kernels.conv2d_backward_weight(plain_w, g, x, weight, lua_stride, lua_pad)
    conv_kernels.conv2d_backward_weight(fast_w, g, x, weight, lua_stride, lua_pad, copies)
    torch.testing.assert_close(fast_w, plain_w, rtol=1e-4, atol=1e-4)
    for grad_weight in (False, True):
        chosen = conv_kernels.conv2d_buffers(x, weight, plain, lua_stride, lua_pad,
                                             grad_weight)
        assert chosen is None or all(
            b.is_contiguous(memory_format=torch.channels_last) for b in chosen)
