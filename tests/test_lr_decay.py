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
    # TinyFlow's Adam is torch.optim.Adam's update; torch gets the same rate at each step
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

