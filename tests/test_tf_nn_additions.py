"""tf.nn's fused_batch_norm, batch_norm_with_global_normalization, the pooling aliases,
conv1d_transpose, dilation2d / erosion2d and log_poisson_loss: TensorFlow 1.15's semantics,
checked against numbers from real TensorFlow (tf.compat.v1 of TF 2.21, graph mode, grappler
off, written down below) and the gradients against finite differences."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")

X = (np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2) ** 1.3) / 10
SCALE, OFFSET = np.array([1.5, 0.5], np.float32), np.array([0.1, -0.2], np.float32)
X1 = np.arange(28, dtype=np.float32).reshape(2, 7, 2) ** 1.2 % 5
IMG = (np.arange(60, dtype=np.float32).reshape(1, 5, 6, 2) ** 1.1 % 7) / 3
KER = (np.arange(12, dtype=np.float32).reshape(2, 3, 2) % 4) / 5


def run(fetches, feeds=None, plan_memory=True):
    with tf.Session(plan_memory=plan_memory) as sess:
        return sess.run(fetches, feeds)


@pytest.mark.parametrize("plan_memory", [True, False])
def test_fused_batch_norm_as_tensorflow(plan_memory):
    train = tf.nn.fused_batch_norm(X, SCALE, OFFSET)
    infer = tf.nn.fused_batch_norm(X, SCALE, OFFSET, mean=[0.5, 1.0], variance=[2.0, 0.25],
                                   epsilon=0.001, is_training=False)
    nchw = tf.nn.fused_batch_norm(np.transpose(X, [0, 3, 1, 2]), SCALE, OFFSET, epsilon=0.01,
                                  data_format="NCHW")
    (y, mean, var), (y2, mean2, var2), (y3, mean3, var3) = run([train, infer, nchw],
                                                               plan_memory=plan_memory)
    # real TF: channel 0 of y in training, the batch's mean and the Bessel-corrected variance
    np.testing.assert_allclose(y[..., 0], [
        [[-1.95463, -1.74828], [-1.44654, -1.09391], [-0.70356, -0.28252]],
        [[0.16471, 0.63497], [1.12587, 1.63558], [2.1626, 2.70569]]], atol=2e-5)
    np.testing.assert_allclose(mean, [2.4517014, 2.7055514], rtol=1e-6)
    np.testing.assert_allclose(var, [3.4938452, 3.7326038], rtol=1e-6)
    # real TF: inference, channel 1; the statistics given back
    np.testing.assert_allclose(y2[..., 1], [
        [[-1.09821, -0.78172], [-0.38929, 0.05444], [0.53839, 1.05594]],
        [[1.60265, 2.17527], [2.77132, 3.38883], [4.02617, 4.68202]]], atol=2e-5)
    np.testing.assert_allclose(mean2, [0.5, 1.0])
    np.testing.assert_allclose(var2, [2.0, 0.25])
    # real TF: NCHW, epsilon 0.01, image 0 channel 0
    np.testing.assert_allclose(y3[0, 0], [[-1.95175, -1.74569], [-1.44437, -1.09223],
                                          [-0.70243, -0.28198]], atol=2e-5)
    np.testing.assert_allclose(var3, var, rtol=1e-6)
    np.testing.assert_allclose(mean3, mean, rtol=1e-6)
    batch = tf.placeholder(tf.float32, [None, 3, 2, 2])  # the count at run time
    fed = run(tf.nn.fused_batch_norm(batch, SCALE, OFFSET)[2], {batch: X}, plan_memory)
    np.testing.assert_allclose(fed, var, rtol=1e-6)


def test_fused_batch_norm_raises_a_small_epsilon_as_tf_1_15():
    # TF 1.15's nn_impl.fused_batch_norm raises epsilon to 1.001e-5 (cuDNN's minimum); TF 2.21,
    # whose numbers the test above uses, no longer does: numpy's formula here
    y = run(tf.nn.fused_batch_norm(X, SCALE, OFFSET, mean=[0.5, 1.0], variance=[2.0, 0.25],
                                   epsilon=0.0, is_training=False)[0])
    want = (X - [0.5, 1.0]) / np.sqrt(np.array([2.0, 0.25]) + 1.001e-5) * SCALE + OFFSET
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)


def test_fused_batch_norm_gradients_as_tensorflow():
    x, scale, offset = tf.constant(X), tf.constant(SCALE), tf.constant(OFFSET)
    y, mean, variance = tf.nn.fused_batch_norm(x, scale, offset)
    weights = np.arange(24, dtype=np.float32).reshape(X.shape) / 7
    grads = run(tf.gradients(tf.reduce_sum(y * weights), [x, scale, offset]))
    # real TF: the gradients of sum(y * weights)
    np.testing.assert_allclose(grads[0][..., 0], [
        [[-0.1909, -0.06454], [0.00953, 0.05571], [0.08122, 0.08991]],
        [[0.08425, 0.06597], [0.03638, -0.00353], [-0.05291, -0.11111]]], atol=2e-5)
    np.testing.assert_allclose(grads[1], [11.7712345, 11.787277], rtol=1e-5)
    np.testing.assert_allclose(grads[2], [18.857143, 20.57143], rtol=1e-6)
    # real TF: no gradient flows back through the returned mean and variance
    stats = tf.gradients(tf.reduce_sum(variance * [1.0, 2.0]) + tf.reduce_sum(mean), x)[0]
    assert stats is None or not np.any(run(stats))
    check_gradients(lambda t, s: tf.nn.fused_batch_norm(t, s, [0.1, -0.2, 0.3])[0],
                    [(3, 2, 2, 3), (3,)])


def test_batch_norm_with_global_normalization_as_tensorflow():
    mean, variance = np.array([0.5, 1.0], np.float32), np.array([2.0, 0.25], np.float32)
    scaled, unscaled = run([
        tf.nn.batch_norm_with_global_normalization(X, mean, variance, OFFSET, SCALE, 0.01, True),
        tf.nn.batch_norm_with_global_normalization(t=X, m=mean, v=variance, beta=OFFSET,
                                                   gamma=SCALE, variance_epsilon=0.01,
                                                   scale_after_normalization=False)])
    # real TF: image 1, channel 0, with and without gamma
    np.testing.assert_allclose(scaled[1, :, :, 0], [[2.24664, 2.84033], [3.46009, 4.10359],
                                                    [4.76894, 5.45458]], atol=2e-5)
    np.testing.assert_allclose(unscaled[1, :, :, 0], [[1.53109, 1.92688], [2.34006, 2.76906],
                                                      [3.21263, 3.66972]], atol=2e-5)


def test_bad_batch_norm_arguments():
    with pytest.raises(ValueError, match="both mean and variance must be given"):
        tf.nn.fused_batch_norm(X, SCALE, OFFSET, is_training=False)
    with pytest.raises(ValueError, match="fused_batch_norm: x must be 4-dimensional"):
        tf.nn.fused_batch_norm(X[0], SCALE, OFFSET)
    with pytest.raises(TypeError, match="needs t, m, v, beta, gamma"):
        tf.nn.batch_norm_with_global_normalization(X, [0.0, 0.0], [1.0, 1.0])


@pytest.mark.parametrize("plan_memory", [True, False])
def test_pooling_aliases_as_tensorflow(plan_memory):
    got = run([tf.nn.max_pool1d(X1, 3, 2, "SAME"), tf.nn.avg_pool1d(X1, [2], [1, 3, 1], "VALID"),
               tf.nn.avg_pool1d(np.transpose(X1, [0, 2, 1]), 3, 2, "SAME", data_format="NCW"),
               tf.nn.max_pool_v2(X1, 2, 2, "VALID"),
               tf.nn.max_pool2d(X, [1, 2, 2, 1], [1, 1, 1, 1], "VALID"),
               tf.nn.avg_pool_v2(X, 2, 1, "SAME")], plan_memory=plan_memory)
    # real TF: channel 0, channel 1, channel 0 (NCW), channel 0 of the four above
    np.testing.assert_allclose(got[0][..., 0], [[2.2974, 3.58581, 3.58581, 4.72502],
                                                [3.73306, 2.85762, 1.41129, 4.88478]], atol=2e-5)
    np.testing.assert_allclose(got[1][..., 1], [[2.3686, 2.14851], [2.87069, 3.33335]],
                               atol=2e-5)
    np.testing.assert_allclose(got[2][:, 0], [[1.1487, 2.05375, 2.18683, 2.78698],
                                              [3.29534, 2.11859, 0.85024, 2.60049]], atol=2e-5)
    np.testing.assert_allclose(got[3][..., 0], [[2.2974, 3.58581, 2.12573],
                                                [3.73306, 2.08685, 0.82322]], atol=2e-5)
    assert tf.nn.avg_pool2d is tf.nn.avg_pool  # as TF 1.15
    np.testing.assert_allclose(got[4], np.maximum(  # numpy: 2 x 2 windows, stride 1
        np.maximum(X[:, :2, :1], X[:, :2, 1:]), np.maximum(X[:, 1:, :1], X[:, 1:, 1:])))
    assert got[5].shape == X.shape
    with pytest.raises(ValueError, match="avg_pool_v2: TinyFlow pools 1-D and 2-D windows"):
        tf.nn.avg_pool_v2(np.zeros((1, 2, 2, 2, 1), np.float32), 2, 2, "VALID")


def test_conv1d_transpose_as_tensorflow():
    filters = (np.arange(24, dtype=np.float32).reshape(3, 4, 2) % 3 - 1) / 2
    same, valid = run([tf.nn.conv1d_transpose(X1, filters, [2, 14, 4], 2, "SAME"),
                       tf.nn.conv1d_transpose(X1, filters, [2, 15, 4], 2, "VALID")])
    assert same.shape == (2, 14, 4) and valid.shape == (2, 15, 4)
    # real TF: image 0 channel 1 (SAME), image 1 channel 0 (VALID)
    np.testing.assert_allclose(same[0, :, 1], [
        -0.5, 0.5, -0.7199, 1.8686, -1.95901, 0.94932, 1.48868, 0.16521, -2.71335, 1.98331,
        -2.02307, 1.38467, 1.08124, 0.85681], atol=2e-5)
    np.testing.assert_allclose(valid[1, :, 0], [
        -1.86653, 1.47574, -1.03802, -1.05108, 1.43647, -1.07542, 1.4132, -1.09773, 1.39176,
        -1.11836, 1.37187, -1.13758, -1.14671, 1.34443, 1.09796], atol=2e-5)
    check_gradients(lambda v, f: tf.nn.conv1d_transpose(v, f, [2, 9, 3], 2, "SAME"),
                    [(2, 5, 2), (3, 3, 2)])


@pytest.mark.parametrize("plan_memory", [True, False])
def test_dilation_and_erosion_as_tensorflow(plan_memory):
    same, valid, eroded = run([
        tf.nn.dilation2d(IMG, KER, [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
        tf.nn.dilation2d(IMG, KER, [1, 2, 1, 1], [1, 1, 2, 1], "VALID"),
        tf.nn.erosion2d(IMG, KER, [1, 1, 2, 1], [1, 2, 1, 1], "SAME")], plan_memory=plan_memory)
    # real TF: channel 0, channel 1, channel 0
    np.testing.assert_allclose(same[0, ..., 0], [
        [1.80936, 1.5316, 1.9316, 2.39522, 1.99522, 2.39522],
        [1.65954, 2.05954, 1.40936, 1.99522, 2.52522, 2.12522],
        [2.29054, 1.89054, 2.29054, 1.67811, 2.12522, 2.52522],
        [1.89054, 2.29054, 1.89054, 2.65142, 2.25142, 2.65142],
        [1.31263, 1.71263, 1.31263, 2.25142, 2.65142, 2.25142]], atol=2e-5)
    np.testing.assert_allclose(valid[0, ..., 1], [[2.5577, 2.52693], [2.47015, 2.6243]],
                               atol=2e-5)
    np.testing.assert_allclose(eroded[0, ..., 0], [
        [0.03738, 0.03738, 0.25617], [-0.4, -0.34884, 0.54972], [-0.36262, -0.36262, 0.41296],
        [0.06586, 0.05116, 0.61681], [0.21501, 0.01296, 0.01296]], atol=2e-5)


def test_dilation_gradient_as_tensorflow():
    image = tf.constant(IMG)
    weights = np.arange(60, dtype=np.float32).reshape(1, 5, 6, 2)
    grad = run(tf.gradients(tf.reduce_sum(tf.nn.dilation2d(
        image, KER, [1, 1, 1, 1], [1, 1, 1, 1], "SAME") * weights), image)[0])
    # real TF: channel 0 of the gradient (each output's weight goes to its window's argmax)
    np.testing.assert_allclose(grad[0, ..., 0], [
        [0, 0, 6, 0, 0, 0], [0, 16, 0, 0, 42, 0], [26, 0, 0, 0, 0, 108],
        [0, 192, 0, 30, 0, 0], [0, 150, 0, 0, 300, 0]])


def test_log_poisson_loss_as_tensorflow():
    targets = np.array([0.0, 0.5, 1.0, 1.5, 3.0, 7.0], np.float32)
    log_input = np.array([0.3, -1.0, 0.2, 1.1, 0.9, 2.0], np.float32)
    plain, full = run([tf.nn.log_poisson_loss(targets, log_input),
                       tf.nn.log_poisson_loss(targets, log_input, compute_full_loss=True)])
    # real TF
    np.testing.assert_allclose(plain, [1.34986, 0.86788, 1.0214, 1.35417, -0.2404, -6.61094],
                               atol=2e-5)
    np.testing.assert_allclose(full, [1.34986, 0.86788, 1.0214, 1.58403, 1.52368, 1.90232],
                               atol=2e-5)
    check_gradients(lambda li: tf.nn.log_poisson_loss(targets, li, compute_full_loss=True),
                    [(6,)])
    with pytest.raises(ValueError, match="log_poisson_loss: log_input shape"):
        tf.nn.log_poisson_loss(targets[:3], log_input)
