"""tf.nn.conv3d_transpose and tf.nn.atrous_conv2d_transpose against PyTorch autograd (each is
the gradient of a convolution, conv3d or a dilated conv2d with TF's SAME padding applied first,
with respect to its input), their gradients against finite differences, with memory planning on
and off; TF's errors (messages as TF 1.15's atrous_conv2d_transpose)."""
import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _same_pads(sizes, kernel, strides):
    pads = []
    for size, k, s in zip(sizes, kernel, strides):
        total = max((-(-size // s) - 1) * s + k - size, 0)
        pads.append((total // 2, total - total // 2))
    return pads


@pytest.mark.parametrize("padding, stride", [("SAME", (2, 2, 1)), ("VALID", (1, 2, 2)),
                                             ("SAME", (1, 1, 1))])
def test_conv3d_transpose_against_torch(padding, stride, plan_memory):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((2, 3, 2, 3, 4)).astype(np.float32)  # [kd, kh, kw, out, in]
    x = torch.zeros((2, 3, 5, 6, 4), requires_grad=True)
    padded = x
    if padding == "SAME":
        (d, h, w_pad) = _same_pads((5, 6, 4), (2, 3, 2), stride)
        padded = torch.nn.functional.pad(x, (*w_pad, *h, *d))
    y = torch.nn.functional.conv3d(padded, torch.from_numpy(w).permute(4, 3, 0, 1, 2),
                                   stride=stride)
    value = rng.standard_normal(y.shape).astype(np.float32)
    y.backward(torch.from_numpy(value))
    out = tf.nn.conv3d_transpose(tf.constant(value.transpose(0, 2, 3, 4, 1)), tf.constant(w),
                                 [2, 5, 6, 4, 3], [1, *stride, 1], padding)
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run(out)
    np.testing.assert_allclose(got, x.grad.permute(0, 2, 3, 4, 1).numpy(), rtol=1e-4,
                               atol=1e-4)


@pytest.mark.parametrize("padding, rate, kernel", [("SAME", 2, (3, 3)), ("SAME", 3, (2, 3)),
                                                   ("VALID", 2, (3, 2)), ("SAME", 1, (3, 3))])
def test_atrous_conv2d_transpose_against_torch(padding, rate, kernel, plan_memory):
    rng = np.random.default_rng(1)
    w = rng.standard_normal((*kernel, 3, 4)).astype(np.float32)  # [kh, kw, out, in]
    x = torch.zeros((2, 3, 7, 8), requires_grad=True)
    padded = x
    if padding == "SAME":
        extra = [(k - 1) * rate for k in kernel]
        padded = torch.nn.functional.pad(x, (extra[1] // 2, extra[1] - extra[1] // 2,
                                             extra[0] // 2, extra[0] - extra[0] // 2))
    y = torch.nn.functional.conv2d(padded, torch.from_numpy(w).permute(3, 2, 0, 1),
                                   dilation=rate)
    value = rng.standard_normal(y.shape).astype(np.float32)
    y.backward(torch.from_numpy(value))
    out = tf.nn.atrous_conv2d_transpose(tf.constant(value.transpose(0, 2, 3, 1)),
                                        tf.constant(w), [2, 7, 8, 3], rate, padding)
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run(out)
    np.testing.assert_allclose(got, x.grad.permute(0, 2, 3, 1).numpy(), rtol=1e-4, atol=1e-4)


def test_gradients_against_finite_differences(plan_memory):
    rng = np.random.default_rng(2)
    check_gradients(lambda v, w: tf.nn.conv3d_transpose(v, w, [1, 4, 3, 4, 2], [1, 2, 1, 2, 1],
                                                        "SAME"),
                    inputs=[rng.standard_normal((1, 2, 3, 2, 3)).astype(np.float32),
                            rng.standard_normal((2, 2, 3, 2, 3)).astype(np.float32)],
                    plan_memory=plan_memory)
    check_gradients(lambda v, w: tf.nn.atrous_conv2d_transpose(v, w, [1, 5, 4, 2], 2, "SAME"),
                    inputs=[rng.standard_normal((1, 5, 4, 3)).astype(np.float32),
                            rng.standard_normal((2, 2, 2, 3)).astype(np.float32)],
                    plan_memory=plan_memory)


def test_errors():
    value, w = tf.zeros([1, 5, 4, 3]), tf.zeros([2, 2, 2, 3])
    with pytest.raises(ValueError, match="rate 0 cannot be less than one"):
        tf.nn.atrous_conv2d_transpose(value, w, [1, 5, 4, 2], 0, "SAME")
    with pytest.raises(ValueError, match="does not match filters' input channels, 3 != 4"):
        tf.nn.atrous_conv2d_transpose(value, tf.zeros([2, 2, 2, 4]), [1, 5, 4, 2], 2, "SAME")
    with pytest.raises(ValueError, match="output_shape does not match filter's output channels"):
        tf.nn.atrous_conv2d_transpose(value, w, [1, 5, 4, 5], 2, "SAME")
    with pytest.raises(ValueError, match="5 ints"):
        tf.nn.conv3d_transpose(tf.zeros([1, 2, 2, 2, 3]), tf.zeros([2, 2, 2, 2, 3]), [1, 4, 4],
                               [1, 2, 2, 2, 1])
    with pytest.raises(ValueError, match=r"\(1, 2, 2, 2, 3\)"):  # conv3d maps no such x on it
        tf.nn.conv3d_transpose(tf.zeros([1, 2, 2, 2, 3]), tf.zeros([2, 2, 2, 2, 3]),
                               [1, 9, 9, 9, 2], [1, 2, 2, 2, 1])
