"""tf.nn.conv2d_backprop_input / conv2d_backprop_filter (TF's Conv2DBackpropInput / Filter)
against torch autograd of the same convolution, and a few values from real TensorFlow."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")

RNG = np.random.default_rng(1)
X = RNG.standard_normal((2, 7, 6, 3)).astype(np.float32)
W = RNG.standard_normal((3, 2, 3, 4)).astype(np.float32)
CASES = [("SAME", [1, 2, 2, 1]), ("VALID", [1, 2, 1, 1])]


def _same_pads(size, kernel, stride):
    """TF's SAME padding of one axis: (before, after), the odd pixel after."""
    total = max((-(-size // stride) - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def _torch_gradients(padding, strides, g):
    """d sum(conv2d(x, w) * g) / dx and / dw in torch (NHWC, HWIO as TF)."""
    x = torch.tensor(X, requires_grad=True)
    w = torch.tensor(W, requires_grad=True)
    data = x.permute(0, 3, 1, 2)
    if padding == "SAME":
        (top, bottom), (left, right) = (_same_pads(n, k, s) for n, k, s in
                                        zip(X.shape[1:3], W.shape[:2], strides[1:3]))
        data = F.pad(data, (left, right, top, bottom))
    y = F.conv2d(data, w.permute(3, 2, 0, 1), stride=strides[1:3]).permute(0, 2, 3, 1)
    (y * torch.tensor(g)).sum().backward()
    return x.grad.numpy(), w.grad.numpy(), tuple(y.shape)


@pytest.mark.parametrize("padding, strides", CASES)
def test_backprops_match_torch(padding, strides, plan_memory):
    out_shape = _torch_gradients(padding, strides, 0.0 * np.ones(1, np.float32))[2]
    g = RNG.standard_normal(out_shape).astype(np.float32)
    want_x, want_w, _ = _torch_gradients(padding, strides, g)
    g_in = tf.placeholder(tf.float32, out_shape)
    grad_x = tf.nn.conv2d_backprop_input(list(X.shape), tf.constant(W), g_in, strides, padding)
    grad_w = tf.nn.conv2d_backprop_filter(tf.constant(X), tf.constant(list(W.shape)), g_in,
                                          strides, padding)
    assert grad_x.get_shape().as_list() == list(X.shape)
    assert grad_w.get_shape().as_list() == list(W.shape)
    with tf.Session(plan_memory=plan_memory) as sess:
        got_x, got_w = sess.run([grad_x, grad_w], {g_in: g})
    np.testing.assert_allclose(got_x, want_x, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_w, want_w, rtol=1e-4, atol=1e-5)


def test_backprops_match_tensorflow_values():
    # real TensorFlow (tensorflow-cpu 2.21's tf.compat.v1.nn) with the g drawn by
    # np.random.default_rng(1) after X and W, SAME padding and strides [1, 2, 2, 1]
    rng = np.random.default_rng(1)
    rng.standard_normal(X.shape), rng.standard_normal(W.shape)
    g = rng.standard_normal((2, 4, 3, 4)).astype(np.float32)
    with tf.Session() as sess:
        got_x, got_w = sess.run([
            tf.nn.conv2d_backprop_input(list(X.shape), W, g, [1, 2, 2, 1], "SAME"),
            tf.nn.conv2d_backprop_filter(X, list(W.shape), g, [1, 2, 2, 1], "SAME")])
    np.testing.assert_allclose(got_x[0, :2, :2, 0], [[1.3688695, 1.1639673],
                                                     [-1.8754439, -0.8933804]], rtol=1e-5)
    np.testing.assert_allclose(got_w[:, :, 0, 0], [[1.9698511, 3.082057],
                                                   [2.9231706, 1.6980181],
                                                   [3.5003824, 0.32990536]], rtol=1e-5)


@pytest.mark.parametrize("plan", [True, False])
def test_backprop_gradients_match_finite_differences(plan):
    # both are linear in g and in the other input: their gradients (conv2d and the other
    # backprop) against central finite differences
    def backprop_input(g, w):
        return tf.nn.conv2d_backprop_input(list(X.shape), w, g, [1, 2, 2, 1], "SAME")

    def backprop_filter(g, x):
        return tf.nn.conv2d_backprop_filter(x, list(W.shape), g, [1, 2, 2, 1], "SAME")
    check_gradients(backprop_input, [(2, 4, 3, 4), W.shape], plan_memory=plan)
    check_gradients(backprop_filter, [(2, 4, 3, 4), X.shape], plan_memory=plan)


def test_backprops_refuse_shapes_that_do_not_fit():
    g = tf.zeros([2, 4, 3, 4])
    with pytest.raises(ValueError, match="does not fit"):
        tf.nn.conv2d_backprop_filter(X, list(W.shape), g, [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="does not fit"):
        tf.nn.conv2d_backprop_filter(X, [3, 2, 5, 4], g, [1, 2, 2, 1], "SAME")
    with pytest.raises(ValueError, match="filter_sizes must have shape"):
        tf.nn.conv2d_backprop_filter(X, [3, 2, 3], g, [1, 2, 2, 1], "SAME")
    with pytest.raises(ValueError, match="does not fit output_shape"):
        tf.nn.conv2d_backprop_input([2, 11, 6, 3], W, g, [1, 2, 2, 1], "VALID")
    with pytest.raises(ValueError, match="dilations .* not supported"):
        tf.nn.conv2d_backprop_input(list(X.shape), W, g, [1, 2, 2, 1], "SAME",
                                    dilations=[1, 2, 2, 1])
