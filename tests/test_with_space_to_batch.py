"""tf.nn.space_to_batch, tf.nn.with_space_to_batch and tf.required_space_to_batch_paddings:
paddings, crops, values and errors as real TensorFlow printed them (tf.compat.v1 of TF 2.21 in
/work/tfvenv, graph mode, the same arguments); a dilated convolution run through
with_space_to_batch against PyTorch's dilated conv2d (TF's SAME padding applied first), its
gradient against finite differences, with memory planning on and off."""
import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")
X = np.arange(2 * 4 * 5 * 3, dtype=np.float32).reshape(2, 4, 5, 3) / 7.0


@pytest.mark.parametrize("shape, block, base, paddings, crops", [
    # TF printed these (paddings, crops)
    ([5, 7], [2, 3], None, [[0, 1], [0, 2]], [[0, 1], [0, 2]]),
    ([4, 4], [2, 2], [[1, 1], [0, 2]], [[1, 1], [0, 2]], [[0, 0], [0, 0]]),
    ([9], [4], [[2, 1]], [[2, 1]], [[0, 0]]),
])
def test_required_space_to_batch_paddings_as_tf(shape, block, base, paddings, crops):
    got_paddings, got_crops = tf.required_space_to_batch_paddings(shape, block, base)
    assert got_paddings.dtype == tf.int32 and got_crops.dtype == tf.int32
    got = tf.Session().run([got_paddings, got_crops])
    np.testing.assert_array_equal(got[0], paddings)
    np.testing.assert_array_equal(got[1], crops)


def test_nn_space_to_batch_as_tf(plan_memory):
    out = tf.nn.space_to_batch(tf.constant(X), [[1, 1], [0, 1]], block_size=2)
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run(out)
    assert got.shape == (8, 3, 3, 3)
    # TF printed channel 0 of its result, flattened, rounded here to 5 digits
    expected = [0, 0, 0, 2.142857, 3, 3.857143, 6.428571, 7.285714, 8.142858, 0, 0, 0,
                10.714286, 11.571428, 12.428572, 15, 15.857142, 16.714285, 0, 0, 0, 2.571429,
                3.428571, 0, 6.857143, 7.714286, 0, 0, 0, 0, 11.142858, 12, 0, 15.428572,
                16.285715, 0, 0, 0.857143, 1.714286, 4.285714, 5.142857, 6, 0, 0, 0, 8.571428,
                9.428572, 10.285714, 12.857142, 13.714286, 14.571428, 0, 0, 0, 0.428571,
                1.285714, 0, 4.714286, 5.571429, 0, 0, 0, 0, 9, 9.857142, 0, 13.285714,
                14.142858, 0, 0, 0, 0]
    np.testing.assert_allclose(got[..., 0].ravel(), expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="rank 4"):  # TF: "Shape (8, 2, 2) must have rank 4"
        tf.nn.space_to_batch(tf.zeros([2, 4, 4]), [[0, 0], [0, 0]], 2)


def _torch_dilated_same(x, w, rate):
    """TF's SAME for a filter dilated by ``rate`` (the odd pixel after), then PyTorch's
    dilated convolution, NHWC / HWIO."""
    extra = [(k - 1) * r for k, r in zip(w.shape[:2], rate)]
    pads = (extra[1] // 2, extra[1] - extra[1] // 2, extra[0] // 2, extra[0] - extra[0] // 2)
    padded = torch.nn.functional.pad(torch.from_numpy(x).permute(0, 3, 1, 2), pads)
    out = torch.nn.functional.conv2d(padded, torch.from_numpy(w).permute(3, 2, 0, 1),
                                     dilation=tuple(rate))
    return out.permute(0, 2, 3, 1).numpy()


@pytest.mark.parametrize("rate, kernel", [([2, 2], [3, 3]), ([2, 3], [2, 3]), ([1, 1], [3, 2])])
def test_dilated_convolution_against_torch(rate, kernel, plan_memory):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 7, 8, 3)).astype(np.float32)
    w = rng.standard_normal((*kernel, 3, 4)).astype(np.float32)
    filters = tf.constant(w)
    out = tf.nn.with_space_to_batch(
        tf.constant(x), rate, "SAME",
        lambda inp, count, padding: tf.nn.conv2d(inp, filters, [1, 1, 1, 1], padding),
        filter_shape=kernel)
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run(out)
    np.testing.assert_allclose(got, _torch_dilated_same(x, w, rate), rtol=1e-4, atol=1e-4)


def test_gradient_against_finite_differences(plan_memory):
    w = np.random.default_rng(1).standard_normal((2, 2, 2, 2)).astype(np.float32)

    def dilated(x):
        return tf.nn.with_space_to_batch(
            x, [2, 2], "SAME", lambda inp, count, padding: tf.nn.conv2d(
                inp, tf.constant(w), [1, 1, 1, 1], padding), filter_shape=[2, 2])
    check_gradients(dilated, inputs=[np.random.default_rng(2).standard_normal(
        (1, 5, 4, 2)).astype(np.float32)], plan_memory=plan_memory)


def test_channels_first_and_valid(plan_memory):
    # TF: with_space_to_batch(x, [2, 3], "VALID", x * 2 + 1) is x * 2 + 1; NCHW keeps the shape
    nhwc = tf.nn.with_space_to_batch(tf.constant(X), [2, 3], "VALID",
                                     lambda inp, count, padding: inp * 2.0 + 1.0)
    nchw = tf.nn.with_space_to_batch(tf.constant(X.transpose(0, 3, 1, 2)), [2, 2], "VALID",
                                     lambda inp, count, padding: inp + 1.0, data_format="NCHW")
    with tf.Session(plan_memory=plan_memory) as sess:
        got_nhwc, got_nchw = sess.run([nhwc, nchw])
    np.testing.assert_allclose(got_nhwc, X * 2 + 1, rtol=1e-6)
    np.testing.assert_allclose(got_nchw, X.transpose(0, 3, 1, 2) + 1, rtol=1e-6)


def test_errors_as_tf():
    x = tf.constant(X)
    with pytest.raises(ValueError, match="filter_shape` must be specified"):
        tf.nn.with_space_to_batch(x, [2, 2], "SAME", lambda i, n, p: i)
    with pytest.raises(ValueError, match="dilation_rate` must be positive"):
        tf.nn.with_space_to_batch(x, [0, 2], "VALID", lambda i, n, p: i)
    with pytest.raises(ValueError, match="must be known"):
        tf.nn.with_space_to_batch(tf.placeholder(tf.float32, [1, None, 4, 1]), [2, 2], "VALID",
                                  lambda i, n, p: i)
