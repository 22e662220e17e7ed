"""tf.nn.max_pool_with_argmax against the argmaxes real TensorFlow printed (tf.compat.v1 of
TF 2.21 in /work/tfvenv, graph mode, the same input and windows), its values against numpy, its
gradient against TF's MaxPoolGradWithArgmax (the head scattered to the recorded argmaxes) and
finite differences, with memory planning on and off."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")
X = np.random.RandomState(0).randn(2, 5, 4, 3).astype(np.float32).round(2)

# (padding, window, stride, include_batch_in_index) -> argmax as TF printed it, flattened
TF_ARGMAX = {
    ("SAME", 2, 2, False): (
        (2, 3, 2, 3), [3, 4, 2, 6, 22, 11, 24, 28, 29, 30, 43, 47, 51, 49, 50, 57, 55, 56, 12, 4,
                       14, 21, 10, 11, 24, 25, 26, 45, 31, 35, 48, 49, 53, 57, 55, 56]),
    ("VALID", 3, 2, True): ((2, 2, 1, 3), [24, 4, 29, 24, 43, 29, 84, 85, 86, 108, 85, 113]),
    ("SAME", 3, 1, True): (
        (2, 5, 4, 3), [3, 4, 2, 3, 4, 2, 3, 4, 11, 6, 22, 11, 24, 4, 29, 24, 4, 29, 3, 4, 29, 6,
                       22, 11, 24, 28, 29, 24, 43, 29, 21, 43, 29, 21, 43, 47, 24, 28, 29, 24,
                       43, 29, 51, 43, 29, 57, 43, 47, 36, 37, 38, 36, 43, 56, 51, 43, 47, 57,
                       43, 47, 72, 64, 74, 72, 67, 74, 81, 70, 71, 81, 70, 71, 84, 85, 86, 84,
                       85, 86, 93, 91, 89, 93, 91, 95, 84, 85, 86, 84, 85, 86, 105, 100, 89,
                       105, 91, 95, 108, 85, 113, 108, 85, 113, 105, 100, 113, 105, 91, 116, 108,
                       100, 113, 108, 100, 113, 105, 100, 113, 105, 103, 116]),
}


def _flat_with_batch(argmax, include_batch):
    """TF's argmax as positions in X.ravel()."""
    offsets = np.arange(argmax.shape[0]).reshape(-1, 1, 1, 1) * X[0].size
    return argmax if include_batch else argmax + offsets


@pytest.mark.parametrize("case", list(TF_ARGMAX))
def test_argmax_values_and_gradient_as_tf(case, plan_memory):
    padding, k, s, include_batch = case
    shape, expected = TF_ARGMAX[case]
    x = tf.placeholder(tf.float32, [None, 5, 4, 3])
    y, argmax = tf.nn.max_pool_with_argmax(x, [1, k, k, 1], [1, s, s, 1], padding,
                                           include_batch_in_index=include_batch)
    assert argmax.dtype == tf.int64
    head = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    grad = tf.gradients(y, x, grad_ys=tf.constant(head))[0]
    with tf.Session(plan_memory=plan_memory) as sess:
        got_y, got_argmax, got_grad = sess.run([y, argmax, grad], {x: X})
    assert got_argmax.dtype == np.int64
    np.testing.assert_array_equal(got_argmax, np.reshape(expected, shape))
    flat = _flat_with_batch(got_argmax, include_batch)
    np.testing.assert_array_equal(got_y, X.ravel()[flat])  # the argmax holds the maximum
    scattered = np.zeros(X.size, np.float32)  # TF's MaxPoolGradWithArgmax
    np.add.at(scattered, flat.ravel(), head.ravel())
    np.testing.assert_allclose(got_grad, scattered.reshape(X.shape))


def test_gradient_against_finite_differences(plan_memory):
    values = np.random.RandomState(1).permutation(2 * 4 * 5 * 2).astype(np.float32)
    check_gradients(lambda x: tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1],
                                                         "SAME")[0],
                    inputs=[values.reshape(2, 4, 5, 2) / 10], plan_memory=plan_memory)


def test_targmax_int32_and_errors():
    x = tf.placeholder(tf.float32, [1, 4, 4, 1])
    _, argmax = tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID",
                                           Targmax=tf.int32)
    assert argmax.dtype == tf.int32
    got = tf.Session().run(argmax, {x: np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)})
    np.testing.assert_array_equal(got.ravel(), [5, 7, 13, 15])
    with pytest.raises(ValueError, match="NHWC"):  # TF: "... other than 'NHWC' ..."
        tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME", data_format="NCHW")
    with pytest.raises(ValueError, match="known height, width and channels"):
        tf.nn.max_pool_with_argmax(tf.placeholder(tf.float32, [1, None, 4, 1]), [1, 2, 2, 1],
                                   [1, 2, 2, 1], "SAME")
    with pytest.raises(TypeError, match="Targmax"):
        tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME", Targmax=tf.float32)
