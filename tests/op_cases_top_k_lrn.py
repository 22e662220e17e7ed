"""test_ops' table for top_k, lrn, confusion_matrix and their backward ops (see
tests/test_tf_math_functions.py for their TensorFlow semantics: ties, errors, dtypes, float16)."""
import torch
import torch.nn.functional as F

import tinyflow as tf
from tinyflow.nnvm.symbol import create_op

F64 = torch.float64


def torch_lrn(x, radius, bias, alpha, beta):
    """TensorFlow's LRN along the last axis, written out: the window sum of squares."""
    depth = x.shape[-1]
    squares = F.pad(x * x, (radius, radius))
    window = sum(squares[..., i:i + depth] for i in range(2 * radius + 1))
    return x / (bias + alpha * window) ** beta


def torch_top_k_backward(g, indices, x):
    return torch.zeros_like(x).scatter(-1, indices.long(), g)


def torch_confusion(labels, predictions, weights, classes):
    out = torch.zeros(classes, classes, dtype=weights.dtype)
    return out.index_put((labels.long(), predictions.long()), weights, accumulate=True)


def _lrn_backward_inputs(rng, shape, attrs):
    x = rng.standard_normal(shape)
    y = torch_lrn(torch.tensor(x), *attrs).numpy()
    return [rng.standard_normal(shape), x, y]


def _window_sum(v, radius):
    depth = v.shape[-1]
    padded = F.pad(v, (radius, radius))
    return sum(padded[..., i:i + depth] for i in range(2 * radius + 1))


def _lrn_backward_ref(g, x, y, attrs):
    """TensorFlow's LRNGrad as a function of g, x and y, each independent (the backward op's
    formula); at y = lrn(x) it is autograd's gradient of torch_lrn (tests/test_second_order.py
    checks that)."""
    radius, bias, alpha, beta = attrs
    norm = bias + alpha * _window_sum(x * x, radius)
    return g * norm ** -beta - 2 * alpha * beta * x * _window_sum(g * y / norm, radius)


def add_cases(add):
    # -- top_k ---------------------------------------------------------------------------
    for shape, k in (((3, 5), 3), ((2, 3, 4), 4), ((6,), 1), ((2, 4), 0)):
        add("top_k", f"{shape}-k={k}-values", lambda x, k=k: tf.nn.top_k(x, k).values, [shape],
            lambda x, k=k: torch.topk(x, k).values)
        add("top_k", f"{shape}-k={k}-both", lambda x, k=k: create_op("top_k", x, k=k),
            [shape], lambda x, k=k: tuple(torch.topk(x, k)), check_gradient=False)
    add("top_k", "ties-lower-index-first", lambda x: create_op("top_k", x, k=3),
        ref=lambda x: (torch.tensor([[3.0, 3.0, 2.0], [5.0, 5.0, 5.0]], dtype=F64),
                       torch.tensor([[1, 2, 3], [0, 1, 3]])),
        inputs=lambda rng: [[[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 1.0, 5.0]]],
        check_gradient=False)
    add("_top_k_backward", "3x5-k=2",
        lambda g, i, x: create_op("_top_k_backward", g, i, x), ref=torch_top_k_backward,
        inputs=lambda rng: [rng.standard_normal((3, 2)), [[4, 0], [2, 3], [1, 4]],
                            rng.standard_normal((3, 5))], wrt=(0, 2))
    # -- lrn -----------------------------------------------------------------------------
    for shape, attrs in (((2, 3, 3, 6), (2, 1.0, 0.5, 0.75)), ((1, 2, 2, 5), (5, 1.0, 1.0, 0.5)),
                         ((2, 2, 1, 7), (1, 2.0, 0.3, 1.0)), ((1, 1, 2, 3), (0, 0.5, 1.0, 0.5))):
        add("lrn", f"{shape}-r={attrs[0]}",
            lambda x, a=attrs: tf.nn.lrn(x, depth_radius=a[0], bias=a[1], alpha=a[2], beta=a[3]),
            [shape], lambda x, a=attrs: torch_lrn(x, *a))
        add("_lrn_backward", f"{shape}-r={attrs[0]}",
            lambda g, x, y, a=attrs: create_op("_lrn_backward", g, x, y, depth_radius=a[0],
                                               bias=a[1], alpha=a[2], beta=a[3]),
            ref=lambda g, x, y, a=attrs: _lrn_backward_ref(g, x, y, a),
            inputs=lambda rng, s=shape, a=attrs: _lrn_backward_inputs(rng, s, a))
    # -- confusion_matrix ----------------------------------------------------------------
    add("confusion_matrix", "weighted-4-classes",
        lambda l, p, w: tf.confusion_matrix(l, p, 4, weights=w, dtype=tf.float32),
        ref=lambda l, p, w: torch_confusion(l, p, w, 4),
        inputs=lambda rng: [rng.integers(0, 4, 12), rng.integers(0, 4, 12),
                            rng.uniform(0.5, 1.5, 12)], wrt=(2,))
    add("confusion_matrix", "counts",
        lambda l, p: tf.confusion_matrix(tf.cast(l, tf.int32), tf.cast(p, tf.int64), 3),
        ref=lambda l, p: torch_confusion(l, p, torch.ones_like(l), 3),
        inputs=lambda rng: [rng.integers(0, 3, 9), rng.integers(0, 3, 9)],
        check_gradient=False)

