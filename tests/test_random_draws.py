"""tf.random_gamma / tf.random.gamma and tf.random_poisson / tf.random.poisson: the moments of
many draws against the laws' (tolerances of a few standard errors, fixed seeds), TF's shapes
and seed semantics, the gamma's gradient against the implicit derivative of its CDF, and what
parameters no law has draw."""
import numpy as np
import pytest
import torch
from op_cases_sampling import implicit_derivative

import tinyflow as tf
from tinyflow.nnvm.symbol import create_op

pytestmark = pytest.mark.usefixtures("fresh_graph")
N = 20000
Z = 5.0  # standard errors: a false failure about once in 1.7 million runs per check


def check_moments(samples, mean, variance, fourth_central):
    """The sample mean and variance of ``samples`` (axis 0) within Z standard errors of the
    law's: Var(mean) = variance / n, Var(s^2) ~ (mu4 - variance^2) / n."""
    n = samples.shape[0]
    got_mean, got_var = samples.mean(0, dtype=np.float64), samples.var(0, dtype=np.float64)
    assert np.all(np.abs(got_mean - mean) < Z * np.sqrt(variance / n)), (got_mean, mean)
    spread = np.sqrt((fourth_central - np.square(variance)) / n)
    assert np.all(np.abs(got_var - variance) < Z * spread), (got_var, variance)


def test_gamma_moments(plan_memory):
    alpha, beta = np.array([0.3, 1.5, 9.0], np.float32), np.array([2.0, 0.5, 1.0], np.float32)
    draws = tf.random_gamma([N], alpha, beta=beta, seed=7)
    assert draws.get_shape().as_list() == [N, 3] and draws.dtype == tf.float32
    with tf.Session(plan_memory=plan_memory) as sess:
        samples = sess.run(draws)
    assert np.all(samples > 0)
    # Gamma(a, rate b): mean a / b, variance a / b^2, fourth central moment 3a(a + 2) / b^4
    check_moments(samples, alpha / beta, alpha / beta ** 2, 3 * alpha * (alpha + 2) / beta ** 4)


def test_poisson_moments(plan_memory):
    rate = np.array([[0.5, 4.0], [30.0, 0.0]], np.float32)
    draws = tf.random.poisson(rate, [N], seed=3)
    ints = tf.random_poisson([2.5], [N], dtype=tf.int64, seed=3)
    assert draws.get_shape().as_list() == [N, 2, 2] and ints.dtype == tf.int64
    with tf.Session(plan_memory=plan_memory) as sess:
        samples, counts = sess.run([draws, ints])
    assert np.array_equal(samples, np.round(samples)) and np.all(samples[:, 1, 1] == 0)
    # Poisson(l): mean l, variance l, fourth central moment l (1 + 3 l)
    check_moments(samples.reshape(N, 4)[:, :3], rate.ravel()[:3], rate.ravel()[:3],
                  rate.ravel()[:3] * (1 + 3 * rate.ravel()[:3]))
    check_moments(counts.astype(np.float64), 2.5, 2.5, 2.5 * 8.5)


def test_shapes_are_prepended_as_tensorflow():
    # TF 1.15: shape + broadcast(alpha, beta).shape; shape + lam.shape
    assert tf.random_gamma([5, 2], [[1.0], [2.0], [3.0]],
                           beta=[1.0, 2.0]).get_shape().as_list() == [5, 2, 3, 2]
    assert tf.random.gamma(4, 2.0).get_shape().as_list() == [4]
    assert tf.random_poisson(tf.ones([3, 2]), [7]).get_shape().as_list() == [7, 3, 2]
    with pytest.raises(TypeError, match="alpha must be float64"):
        tf.random_gamma([2], tf.constant([1.0]), dtype=tf.float64)
    with pytest.raises(TypeError, match="random_gamma: dtype int32 is not one of"):
        tf.random_gamma([2], 1.0, dtype=tf.int32)


def test_seeds_as_the_other_random_ops():
    seeded = tf.random_gamma([4], [2.0, 3.0], seed=11)
    counts = tf.random_poisson([3.0], [6], seed=11)
    unseeded = tf.random_gamma([1000], 2.0)
    with tf.Session() as sess:
        first = sess.run([seeded, counts])
        second = sess.run([seeded, counts])  # each run draws anew
        free = sess.run(unseeded)
    with tf.Session() as sess:  # a new session repeats a seeded node's sequence
        again = sess.run([seeded, counts])
        free_again = sess.run(unseeded)
    for a, b, c in zip(first, second, again):
        np.testing.assert_array_equal(a, c)
        assert not np.array_equal(a, b)
    assert not np.array_equal(free, free_again)
    tf.reset_default_graph()
    tf.set_random_seed(5)  # the graph's seed gives each op a seed of its own
    a, b = tf.random_gamma([8], 1.0), tf.random_gamma([8], 1.0)
    with tf.Session() as sess:
        first = sess.run([a, b])
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run([a, b]), first)
    assert not np.array_equal(*first)


def test_gamma_gradient_is_the_implicit_derivative(plan_memory):
    # x = s / beta, s ~ Gamma(alpha, 1): dx/dalpha = ds/dalpha / beta, ds/dalpha = -(dF/dalpha)
    # / (dF/ds) at the drawn s; dx/dbeta = -x / beta (TF's gradients of RandomGamma and x / b)
    alpha = tf.placeholder(tf.float32, [5])
    beta = tf.constant(np.float32(2.5))
    draws = tf.random_gamma([], alpha, beta=beta, seed=2)
    grad_alpha, grad_beta = tf.gradients(tf.reduce_sum(draws), [alpha, beta])
    alpha_value = np.array([0.4, 1.0, 2.5, 6.0, 15.0], np.float32)
    with tf.Session(plan_memory=plan_memory) as sess:
        x, got_alpha, got_beta = sess.run([draws, grad_alpha, grad_beta], {alpha: alpha_value})
    s = torch.tensor(x * 2.5, dtype=torch.float64)
    want = implicit_derivative(torch.tensor(alpha_value, dtype=torch.float64), s) / 2.5
    np.testing.assert_allclose(got_alpha, want.numpy(), rtol=1e-3, atol=1e-6)
    np.testing.assert_allclose(got_beta, -(x / 2.5).sum(), rtol=1e-5)


def test_gamma_grad_op_is_the_implicit_derivative(plan_memory):
    # torch's approximation of it (which TinyFlow's kernel calls) is good to about 3e-5
    rng = np.random.default_rng(0)
    alpha = rng.uniform(0.5, 4.0, 3).astype(np.float32)
    sample = (rng.gamma(alpha, size=(4, 3)) + 0.05).astype(np.float32)
    a, x = tf.placeholder(tf.float32, [3]), tf.placeholder(tf.float32, [4, 3])
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run(create_op("_random_gamma_grad", a, x), {a: alpha, x: sample})
    want = implicit_derivative(torch.tensor(alpha, dtype=torch.float64),
                               torch.tensor(sample, dtype=torch.float64))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-4)


def test_parameters_no_law_has():
    gamma = tf.random_gamma([3], [np.nan, -1.0, 0.0], seed=1)
    poisson = tf.random_poisson([np.nan, -1.0, np.inf, 1e30, 0.0], [3], seed=1)
    with tf.Session() as sess:
        g, p = sess.run([gamma, poisson])
    assert np.all(np.isnan(g[:, :2]))  # as TF's kernel
    assert np.all(g[:, 2] == np.finfo(np.float32).tiny)  # alpha 0: TF's smallest normal
    assert np.all(np.isnan(p[:, :3]))  # TF's kernel loops on these; here NaN
    assert np.all(p[:, 3] == np.float32(1e30)) and np.all(p[:, 4] == 0)
