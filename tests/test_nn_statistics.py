"""tf.nn.sufficient_statistics, normalize_moments, weighted_moments, zero_fraction and swish:
values (and weighted_moments' gradient) as real TF prints them (tf.compat.v1 in /work/tfvenv,
the same graphs), with memory planning on and off; gradients against finite differences."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")
X = np.arange(12, dtype=np.float32).reshape(3, 4) - 3
W = np.float32([[1], [2], [3]])


def _run(fetches, plan_memory, feed=None):
    with tf.Session(plan_memory=plan_memory) as sess:
        return sess.run(fetches, feed)


def test_sufficient_statistics_and_normalize_moments(plan_memory):
    x = tf.constant(X)
    count, mean_ss, var_ss, shift = tf.nn.sufficient_statistics(x, [0], shift=1.0)
    got = _run([count, mean_ss, var_ss], plan_memory)
    assert got[0] == 3.0 and shift == 1.0
    np.testing.assert_array_equal(got[1], [0, 3, 6, 9])
    np.testing.assert_array_equal(got[2], [32, 35, 44, 59])
    mean, variance = _run(tf.nn.normalize_moments(count, mean_ss, var_ss, 1.0), plan_memory)
    np.testing.assert_allclose(mean, [1, 2, 3, 4])
    np.testing.assert_allclose(variance, [10.666667] * 4, rtol=1e-6)
    kept = tf.nn.sufficient_statistics(x, [1], keep_dims=True)[:3]
    got = _run(list(kept), plan_memory)
    assert got[0] == 4.0
    np.testing.assert_array_equal(got[1].ravel(), [-6, 10, 26])
    np.testing.assert_array_equal(got[2].ravel(), [14, 30, 174])
    # a dimension known only when fed: the count is computed from the shape
    fed = tf.placeholder(tf.float32, [None, 4])
    assert _run(tf.nn.sufficient_statistics(fed, [0])[0], plan_memory, {fed: X}) == 3.0


def test_weighted_moments_values_and_gradient(plan_memory):
    x = tf.placeholder(tf.float32, [None, 4])
    mean, variance = tf.nn.weighted_moments(x, [0], tf.constant(W))
    got = _run([mean, variance], plan_memory, {x: X})
    np.testing.assert_allclose(got[0], [2.3333333, 3.3333333, 4.3333335, 5.3333335], rtol=1e-6)
    np.testing.assert_allclose(got[1], [8.888888, 8.888888, 8.888889, 8.888889], rtol=1e-6)
    both = tf.nn.weighted_moments(x, [0, 1], tf.constant(W), keep_dims=True)
    got = _run(list(both), plan_memory, {x: X})
    assert got[0].shape == (1, 1)
    np.testing.assert_allclose([got[0][0, 0], got[1][0, 0]], [3.8333333, 10.138888], rtol=1e-6)
    # the gradient stops at the mean inside the variance, as TF's
    loss = tf.reduce_sum(variance * tf.constant([1.0, 2, 3, 4]))
    grad = _run(tf.gradients(loss, x)[0], plan_memory,
                {x: np.arange(12, dtype=np.float32).reshape(3, 4) ** 1.5})
    np.testing.assert_allclose(grad.ravel(), [
        -4.660124778747559, -10.928964614868164, -18.35334587097168, -26.77963638305664,
        -3.9869165420532227, -8.28414249420166, -12.969666481018066, -18.028329849243164,
        8.647041320800781, 19.21310806274414, 31.323013305664062, 44.80796432495117],
        rtol=1e-5)


def test_zero_fraction_and_swish(plan_memory):
    x = tf.constant(X)
    got = _run([tf.nn.zero_fraction(tf.nn.relu(x)), tf.nn.swish(x[0])], plan_memory)
    assert got[0] == pytest.approx(0.33333334)
    np.testing.assert_allclose(got[1], [-0.14227763, -0.23840584, -0.26894143, 0.0],
                               rtol=1e-6, atol=1e-7)
    check_gradients(tf.nn.swish, [(3, 4)], plan_memory=plan_memory)
