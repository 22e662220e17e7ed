"""Learning-rate schedules against TensorFlow 1.15's documented formulas, computed in numpy."""
import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.frontend.learning_rate_decay import (
    exponential_decay,
    inverse_time_decay,
    natural_exp_decay,
    piecewise_constant,
    polynomial_decay,
)

pytestmark = pytest.mark.usefixtures("fresh_graph")

STEPS = np.arange(0, 251)


def _over_steps(make_schedule, steps=STEPS, plan_memory=True):
    """The schedule's value at every step, the step fed to an int64 scalar placeholder."""
    step = tf.placeholder(tf.int64, [])
    schedule = make_schedule(step)
    with tf.Session(plan_memory=plan_memory) as sess:
        return schedule, np.array([sess.run(schedule, {step: s}) for s in steps])


@pytest.mark.parametrize("staircase", [False, True])
def test_exponential_decay(staircase, plan_memory):
    schedule, got = _over_steps(
        lambda s: exponential_decay(0.1, s, 30, 0.9, staircase=staircase), plan_memory=plan_memory)
    p = STEPS / 30
    expected = 0.1 * 0.9 ** (np.floor(p) if staircase else p)
    assert schedule.dtype == tf.float32 and got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=2e-6)
    if staircase:  # constant within a period, a jump at each multiple of decay_steps
        assert got[29] == got[0] and got[30] < got[29]


@pytest.mark.parametrize("staircase", [False, True])
def test_natural_exp_decay(staircase):
    _, got = _over_steps(lambda s: natural_exp_decay(0.2, s, 40, 0.5, staircase=staircase))
    p = STEPS / 40
    np.testing.assert_allclose(got, 0.2 * np.exp(-0.5 * (np.floor(p) if staircase else p)),
                               rtol=2e-6)


@pytest.mark.parametrize("staircase", [False, True])
def test_inverse_time_decay(staircase):
    _, got = _over_steps(lambda s: inverse_time_decay(0.5, s, 25, 2.0, staircase=staircase))
    p = STEPS / 25
    np.testing.assert_allclose(got, 0.5 / (1 + 2.0 * (np.floor(p) if staircase else p)),
                               rtol=2e-6)


@pytest.mark.parametrize("power", [1.0, 0.5, 2.0])
@pytest.mark.parametrize("cycle", [False, True])
def test_polynomial_decay(power, cycle, plan_memory):
    _, got = _over_steps(lambda s: polynomial_decay(0.1, s, 60, 0.001, power=power,
                                                    cycle=cycle), plan_memory=plan_memory)
    if cycle:  # the first multiple of decay_steps at or above the step, one period at step 0
        decay_steps = 60 * np.maximum(np.ceil(STEPS / 60), 1)
        step = STEPS
    else:
        decay_steps, step = 60, np.minimum(STEPS, 60)
    expected = (0.1 - 0.001) * (1 - step / decay_steps) ** power + 0.001
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)
    assert got[60] == pytest.approx(0.001)
    assert (got[61] > 0.01) == cycle  # a cycle starts over after decay_steps


def _piecewise_reference(x, boundaries, values):
    """TF's rule: values[0] for x <= b[0], values[i] for b[i-1] < x <= b[i], else values[-1]."""
    for boundary, value in zip(boundaries, values):
        if x <= boundary:
            return value
    return values[-1]


@pytest.mark.parametrize("boundaries, values", [
    ([100], [1.0, 0.5]),
    ([10, 20, 35], [1.0, 0.5, 0.25, 0.125]),
    ([0, 1, 2, 200], [0.4, 0.3, 0.2, 0.1, 0.05]),
])
def test_piecewise_constant(boundaries, values, plan_memory):
    schedule, got = _over_steps(lambda s: piecewise_constant(s, boundaries, values),
                                plan_memory=plan_memory)
    expected = [_piecewise_reference(x, boundaries, values) for x in STEPS]
    assert schedule.dtype == tf.float32
    np.testing.assert_array_equal(got, np.float32(expected))


def test_piecewise_constant_value_and_boundary_dtypes():
    # int values give an int32 result; float boundaries are cast to the step's int64 (10.7 -> 10)
    schedule, got = _over_steps(lambda s: piecewise_constant(s, [10.7, 20], [3, 2, 1]),
                                steps=[9, 10, 11, 20, 21])
    assert schedule.dtype == tf.int32
    np.testing.assert_array_equal(got, [3, 3, 2, 2, 1])
    # a float step with scalar tensor boundaries and values
    x = tf.placeholder(tf.float32, [])
    value = piecewise_constant(x, [tf.constant(0.5)], [tf.constant(7.0), tf.constant(9.0)])
    with tf.Session() as sess:
        assert [sess.run(value, {x: v}) for v in (0.25, 0.5, 0.75)] == [7.0, 7.0, 9.0]


def test_wrong_inputs_are_refused():
    step = tf.train.get_or_create_global_step()
    with pytest.raises(ValueError, match="1 less than the length of values"):
        piecewise_constant(step, [10, 20], [1.0, 0.5])
    with pytest.raises(ValueError, match="1 less than the length of values"):
        piecewise_constant(step, [10], [1.0, 0.5, 0.1])
    with pytest.raises(ValueError, match="same dtype"):
        piecewise_constant(step, [10], [1.0, 2])
    for schedule in (exponential_decay, natural_exp_decay, inverse_time_decay):
        with pytest.raises(ValueError, match=f"global_step is required for {schedule.__name__}"):
            schedule(0.1, None, 10, 0.5)
    with pytest.raises(ValueError, match="global_step is required for polynomial_decay"):
        polynomial_decay(0.1, None, 10)


def test_dtypes_follow_the_learning_rate():
    step = tf.train.get_or_create_global_step()  # an int64 variable
    assert step.dtype == tf.int64
    assert exponential_decay(0.1, step, 10, 0.5).dtype == tf.float32
    lr64 = tf.constant(0.1, tf.float64)
    for schedule in (exponential_decay, natural_exp_decay, inverse_time_decay):
        assert schedule(lr64, step, 10, 0.5).dtype == tf.float64
    assert polynomial_decay(lr64, step, 10).dtype == tf.float64
    with tf.Session() as sess:  # a Python int step works too
        assert sess.run(exponential_decay(0.1, 20, 10, 0.5)) == pytest.approx(0.025)


def test_gradient_descent_with_a_decaying_rate(plan_memory):
    # w <- w - lr(step) * 2 (w - 3), the rate read at the step before minimize increments it
    step = tf.train.get_or_create_global_step()
    w = tf.Variable(0.0, name="w")
    loss = tf.square(w - 3.0)
    lr = exponential_decay(0.2, step, 3, 0.5, staircase=True)
    train_op = tf.train.GradientDescentOptimizer(lr).minimize(loss, global_step=step)
    expected_w = 0.0
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for k in range(10):
            rate = 0.2 * 0.5 ** (k // 3)
            assert sess.run(lr) == pytest.approx(rate)
            sess.run(train_op)
            expected_w -= rate * 2 * (expected_w - 3.0)
            assert sess.run(w) == pytest.approx(expected_w, rel=1e-5)
            assert tf.train.global_step(sess, step) == k + 1


def test_adam_with_a_schedule_matches_torch(plan_memory):
    # TF's Adam (TinyFlow's) is torch.optim.Adam's update but for where epsilon (1e-8) enters,
    # far below the tolerance; torch gets the same rate at each step
    rng = np.random.default_rng(0)
    x_value = rng.standard_normal((6, 4)).astype(np.float32)
    w0 = rng.standard_normal((4, 1)).astype(np.float32)
    step = tf.train.get_or_create_global_step()
    w = tf.Variable(tf.constant(w0), name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(x_value), w) - 1.0))
    lr = piecewise_constant(step, [2, 4], [0.1, 0.05, 0.01])
    train_op = tf.train.AdamOptimizer(lr).minimize(loss, global_step=step)
    tw = torch.tensor(w0, requires_grad=True)
    optimizer = torch.optim.Adam([tw], lr=0.1)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for k in range(7):
            for group in optimizer.param_groups:
                group["lr"] = 0.1 if k <= 2 else 0.05 if k <= 4 else 0.01
            sess.run(train_op)
            optimizer.zero_grad()
            torch.mean((torch.tensor(x_value) @ tw - 1.0) ** 2).backward()
            optimizer.step()
            np.testing.assert_allclose(sess.run(w), tw.detach().numpy(), rtol=1e-4, atol=1e-6)
        assert sess.run(step) == 7



# -- the cosine schedules: numpy's formulas (TF 1.15's learning_rate_decay_v2), and values from
# real TF (tf.compat.v1 in /work/tfvenv) at a few steps
def _sgdr(step, first, t_mul, m_mul, alpha):
    fraction = step / first
    if t_mul == 1.0:
        i_restart = np.floor(fraction)
        fraction = fraction - i_restart
    else:
        i_restart = np.floor(np.log(1 - fraction * (1 - t_mul)) / np.log(t_mul))
        sum_r = (1 - t_mul ** i_restart) / (1 - t_mul)
        fraction = (fraction - sum_r) / t_mul ** i_restart
    decayed = m_mul ** i_restart * 0.5 * (1 + np.cos(np.pi * fraction))
    return 0.1 * ((1 - alpha) * decayed + alpha)


def _linear_cosine(step, decay_steps, num_periods, alpha, beta, noise=0.0):
    step = np.minimum(step, decay_steps)
    linear = (decay_steps - step) / decay_steps + noise
    cosine = 0.5 * (1 + np.cos(np.pi * 2 * num_periods * step / decay_steps))
    return 0.1 * ((alpha + linear) * cosine + beta)


def test_cosine_decay(plan_memory):
    schedule, got = _over_steps(lambda s: tf.train.cosine_decay(0.1, s, 100, alpha=0.1),
                                plan_memory=plan_memory)
    fraction = np.minimum(STEPS, 100) / 100
    expected = 0.1 * (0.9 * 0.5 * (1 + np.cos(np.pi * fraction)) + 0.1)
    assert schedule.dtype == tf.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    # real TF at steps 7, 50, 99: 0.098916255, 0.054999996, 0.010022206
    np.testing.assert_allclose(got[[7, 50, 99]], [0.098916255, 0.054999996, 0.010022206],
                               rtol=1e-6)


@pytest.mark.parametrize("t_mul,m_mul,alpha", [(2.0, 0.5, 0.05), (1.0, 0.9, 0.0),
                                               (1.5, 0.9, 0.0)])
def test_cosine_decay_restarts(t_mul, m_mul, alpha):
    _, got = _over_steps(lambda s: tf.train.cosine_decay_restarts(
        0.1, s, 10, t_mul=t_mul, m_mul=m_mul, alpha=alpha))
    expected = _sgdr(STEPS.astype(np.float64), 10, t_mul, m_mul, alpha)
    # the restarts' float32 floor of log ratios may round an exact boundary either way:
    # compare away from them
    away = np.abs(got - expected) < 1e-5
    assert away.mean() > 0.97, f"{(~away).sum()} steps differ"
    if t_mul == 2.0:  # real TF at steps 7, 10, 25, 50, 150
        np.testing.assert_allclose(got[[7, 10, 25, 50, 150]], [
            0.024580203, 0.0525, 0.011956215, 0.016874999, 0.0109375], rtol=1e-5)


def test_cosine_decay_restarts_with_a_tensor_t_mul():
    step = tf.placeholder(tf.int64, [])
    t_mul = tf.placeholder(tf.float32, [])
    schedule = tf.train.cosine_decay_restarts(0.1, step, 10, t_mul=t_mul, m_mul=0.9)
    with tf.Session() as sess:
        for mul in (1.0, 1.5):
            got = [sess.run(schedule, {step: s, t_mul: mul}) for s in (7, 10, 50, 150)]
            np.testing.assert_allclose(got, _sgdr(np.float64([7, 10, 50, 150]), 10, mul, 0.9,
                                                  0.0), rtol=1e-5)


def test_linear_cosine_decay(plan_memory):
    _, got = _over_steps(lambda s: tf.train.linear_cosine_decay(
        0.1, s, 100, num_periods=2.0, alpha=0.1, beta=0.01), plan_memory=plan_memory)
    np.testing.assert_allclose(got, _linear_cosine(STEPS, 100, 2.0, 0.1, 0.01), rtol=1e-5,
                               atol=1e-8)
    # real TF at steps 0, 7, 50: 0.111, 0.085327335, 0.061
    np.testing.assert_allclose(got[[0, 7, 50]], [0.111, 0.085327335, 0.061], rtol=1e-6)


def test_noisy_linear_cosine_decay_noise_has_tfs_variance():
    step = tf.placeholder(tf.int64, [])
    schedule = tf.train.noisy_linear_cosine_decay(0.1, step, 100, initial_variance=1.0,
                                                  variance_decay=0.55, num_periods=0.5)
    tf.set_random_seed(3)
    with tf.Session() as sess:
        draws = np.array([sess.run(schedule, {step: 20}) for _ in range(4000)])
    # value = 0.1 * ((linear + noise) * cosine + beta): the noise from the draws
    cosine = 0.5 * (1 + np.cos(np.pi * 0.2))
    noise = (draws / 0.1 - 0.001) / cosine - 0.8
    assert abs(noise.mean()) < 4 * np.sqrt(21 ** -0.55 / 4000)
    np.testing.assert_allclose(noise.std(), np.sqrt(21 ** -0.55), rtol=0.05)


def test_cosine_schedules_need_a_step():
    for schedule, message in ((tf.train.cosine_decay, "cosine decay requires global_step"),
                              (tf.train.linear_cosine_decay, "linear cosine decay requires"),
                              (tf.train.noisy_linear_cosine_decay, "noisy linear cosine decay"),
                              (tf.train.cosine_decay_restarts, "cosine decay restarts")):
        with pytest.raises(ValueError, match=message):
            schedule(0.1, None, 10)
