"""Shapes known only at run time (TShapeAtRunTime; tinyflow/executor/stages.py): tf.where with
one argument, tf.boolean_mask, the ops reading them bound in stages per shapes seen; a loop
variable whose shape_invariants let its shape vary; a dynamic_size TensorArray written at
indices found at run time.

Values are compared with numpy, gradients with numpy's and with finite differences; the static
shapes and some values with those real TensorFlow 1.15 gives (tensorflow 2.21's compat.v1
graph mode with control flow v1, as TF 1.15's, run by hand and written down below).  Every
session test runs with memory planning on and off, the main ones on every device (the GPU
case skips without CUDA).
"""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.executor import StagedExecutor
from tinyflow.frontend.testing import check_gradients
from tinyflow.lua_ops.runtime import LuaOpError
from tinyflow.nnvm.errors import ShapeError

pytestmark = pytest.mark.usefixtures("fresh_graph", "torch_seed")

X = np.array([[1, -2, 3], [-1, -1, 0.5], [2, 2, 2]], np.float32)


def _staged(sess, fetches):
    """The one executor the session cached for ``fetches``."""
    (executor,) = sess._executors.executors(tuple(e for f in fetches for e in f.outputs))
    return executor


# -- tf.where(condition) ---------------------------------------------------------------------
def test_where_gives_the_coordinates_of_the_true_elements(config, plan_memory):
    x = tf.placeholder(tf.float32, [None, 3])
    coordinates = tf.where(x > 0)
    # real TF 1.15: tf.where(placeholder [None, 3] > 0) has static shape (None, 2), int64
    assert coordinates.get_shape().as_list() == [None, 2]
    assert coordinates.dtype == tf.int64
    with tf.Session(config, plan_memory=plan_memory) as sess:
        for value in (X, -X, np.zeros((0, 3), np.float32), np.ones((5, 3), np.float32)):
            got = sess.run(coordinates, {x: value})
            np.testing.assert_array_equal(got, np.argwhere(value > 0))
            assert got.dtype == np.int64


def test_where_of_a_number_tensor_is_its_nonzero_elements():
    x = tf.placeholder(tf.int32, [4])
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.where(x), {x: [0, 3, 0, -1]}), [[1], [3]])


def test_ops_reading_where_are_bound_at_the_count_the_run_found(plan_memory):
    x = tf.placeholder(tf.float32, [None, 3])
    count = tf.shape(tf.where(x > 0))[0]
    total = tf.reduce_sum(tf.cast(tf.where(x > 0), tf.float32) * 2.0)
    with tf.Session(plan_memory=plan_memory) as sess:
        for value in (X, -X, X, np.zeros((3, 3), np.float32)):
            got_count, got_total = sess.run([count, total], {x: value})
            assert got_count == np.count_nonzero(value > 0)
            assert got_total == pytest.approx(2.0 * np.argwhere(value > 0).sum())
        executor = _staged(sess, [count, total])
        assert isinstance(executor, StagedExecutor)
        # one later stage per count seen: 6 (X), 3 (-X), 0 (zeros)
        assert sorted(shape[0][0] for shape in executor.later) == [0, 3, 6]


# -- tf.boolean_mask ---------------------------------------------------------------------------
def test_boolean_mask_keeps_the_rows_where_the_mask_is_true(plan_memory):
    x = tf.placeholder(tf.float32, [None, 3])
    rows = tf.boolean_mask(x, tf.reduce_sum(x, 1) > 0)
    elements = tf.boolean_mask(x, x > 0)
    columns = tf.boolean_mask(tf.reshape(x, [-1, 3, 1]), x[0] > 0, axis=1)
    # real TF 1.15's static shapes: (?, 3), (?,), (?, ?, 1)
    assert rows.get_shape().as_list() == [None, 3]
    assert elements.get_shape().as_list() == [None]
    assert columns.get_shape().as_list() == [None, None, 1]
    with tf.Session(plan_memory=plan_memory) as sess:
        for value in (X, -X, np.ones((4, 3), np.float32)):
            got = sess.run([rows, elements, columns], {x: value})
            np.testing.assert_array_equal(got[0], value[value.sum(1) > 0])
            np.testing.assert_array_equal(got[1], value[value > 0])
            np.testing.assert_array_equal(got[2], value.reshape(-1, 3, 1)[:, value[0] > 0])


def test_boolean_mask_of_a_constant_mask_and_a_python_list():
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.boolean_mask(x, [True, False, True, False])),
                                      np.arange(12).reshape(4, 3)[[0, 2]])


def test_boolean_mask_refuses_a_scalar_or_mismatched_mask():
    x = tf.placeholder(tf.float32, [4, 3])
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        tf.boolean_mask(x, tf.constant(True))
    with pytest.raises(ValueError, match="incompatible"):
        tf.boolean_mask(x, tf.constant([True, False]))
    with pytest.raises(ValueError, match="Number of mask dimensions"):
        tf.boolean_mask(x, tf.placeholder(tf.bool))


def test_boolean_mask_gradient_scatters_back_into_zeros(config, plan_memory):
    x = tf.placeholder(tf.float32, [None, 3])
    kept = tf.boolean_mask(x, tf.reduce_sum(x, 1) > 0)
    (grad,) = tf.gradients(tf.reduce_sum(kept * kept), x)
    with tf.Session(config, plan_memory=plan_memory) as sess:
        for value in (X, -X):
            expected = np.where((value.sum(1) > 0)[:, None], 2 * value, 0)
            np.testing.assert_allclose(sess.run(grad, {x: value}), expected)


def test_boolean_mask_gradient_against_finite_differences(plan_memory):
    mask = np.array([[True, False, True], [False, False, True]])
    report = check_gradients(lambda x: tf.boolean_mask(x, mask) ** 2, [(2, 3)],
                             plan_memory=plan_memory)  # raises when they differ
    assert set(report.symbolic) == {0}
    report = check_gradients(lambda x: tf.boolean_mask(x, x[:, 0] > 0.5, axis=0), [(5, 2)],
                             plan_memory=plan_memory)
    assert report.outputs[0].shape[1] == 2


def test_a_layer_trained_on_masked_rows(plan_memory):
    """A dense layer's variables, read only by the later stage, made and trained there."""
    x = tf.placeholder(tf.float32, [None, 3])
    kept = tf.boolean_mask(x, x[:, 0] > 0)
    w = tf.Variable(np.full((3, 1), 0.5, np.float32))
    loss = tf.reduce_sum(tf.matmul(kept, w))
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step, {x: X})
        # d loss / d w = the kept rows summed: rows 0 and 2 of X
        np.testing.assert_allclose(sess.run(w).ravel(), 0.5 - 0.1 * X[[0, 2]].sum(0),
                                   atol=1e-6)


# -- the stages --------------------------------------------------------------------------------
def test_nothing_before_the_run_time_shape_runs_twice(plan_memory):
    counter = tf.Variable(0)
    bump = tf.assign_add(counter, 1)
    r = tf.random_uniform([20], seed=3)
    with tf.control_dependencies([bump]):
        kept = tf.boolean_mask(r, r > 0.5) + 0.0
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for run in range(1, 4):
            values, got = sess.run([r, kept])
            np.testing.assert_array_equal(got, values[values > 0.5])  # the same draw
            assert sess.run(counter) == run  # the assign ran once a run


def test_a_later_stage_with_a_run_time_shape_of_its_own(plan_memory):
    x = tf.placeholder(tf.float32, [None])
    kept = tf.boolean_mask(x, x > 0)
    again = tf.boolean_mask(kept, kept < 2.0)  # stage 3
    total = tf.reduce_sum(again) * 10.0
    with tf.Session(plan_memory=plan_memory) as sess:
        for value in ([1.0, -1.0, 3.0, 0.5], [-1.0, 5.0], [1.5, 1.5, 1.5]):
            value = np.array(value, np.float32)
            expected = value[(value > 0) & (value < 2.0)]
            got_again, got_total = sess.run([again, total], {x: value})
            np.testing.assert_array_equal(got_again, expected)
            assert got_total == pytest.approx(expected.sum() * 10.0)


def test_reports_say_what_is_bound_at_run_time():
    x = tf.placeholder(tf.float32, [None, 3])
    total = tf.reduce_sum(tf.boolean_mask(x, x > 0))
    with tf.Session() as sess:
        plan = sess.memory_plan(total, {x: X})
        assert plan.run_time_shaped and plan.later == []
        assert "known once they ran" in str(plan)
        sess.run(total, {x: X})
        plan = sess.memory_plan(total, {x: X})
        assert [shapes for shapes, _ in plan.later] == [((6, 1),)]
        assert "stage 2 for shapes (6, 1)" in str(plan)
        closures = sess.closures(total, {x: X})
        assert [row[1] for row in closures.rows].count("where_true") == 1
        assert "gather" in [row[1] for row in closures.later[0][1].rows]
        assert "stage 2, bound at run time" in str(closures)


def test_a_run_time_shape_read_inside_a_loop_body_is_a_clear_error():
    x = tf.placeholder(tf.float32, [4])
    _, total = tf.while_loop(lambda i, t: i < 2,
                             lambda i, t: (i + 1, t + tf.reduce_sum(tf.boolean_mask(x, x > t))),
                             (tf.constant(0), tf.constant(0.0)))
    with tf.Session() as sess, pytest.raises(ShapeError, match="known only once it ran"):
        sess.run(total, {x: np.ones(4, np.float32)})


# -- (a) a loop variable whose shape varies ------------------------------------------------------
def _growing(x, n):
    """m <- concat([m, m * x[0, 0]]) n times, from m = x (shape (2 ** n * 2, 2) after)."""
    i0 = tf.constant(0)
    return tf.while_loop(lambda i, m: i < n, lambda i, m: [i + 1, tf.concat([m, m * x[0, 0]], 0)],
                         [i0, x], shape_invariants=[i0.get_shape(), tf.TensorShape([None, 2])])


def test_a_loop_variable_whose_shape_invariant_lets_it_grow(config, plan_memory):
    i0, m0 = tf.constant(0), tf.ones([2, 2])
    i, m = tf.while_loop(lambda i, m: i < 3, lambda i, m: [i + 1, tf.concat([m, m], 0)],
                         [i0, m0], shape_invariants=[i0.get_shape(), tf.TensorShape([None, 2])])
    assert m.get_shape().as_list() == [None, 2]  # real TF 1.15: (?, 2)
    with tf.Session(config, plan_memory=plan_memory) as sess:
        got_i, got_m = sess.run([i, m])
        assert got_i == 3  # real TF 1.15: 3 and ones of shape (16, 2)
        np.testing.assert_array_equal(got_m, np.ones((16, 2)))
        np.testing.assert_array_equal(sess.run(tf.reduce_sum(m, 0)), [16, 16])


def test_the_loop_body_is_bound_per_shape_and_later_ops_per_result(plan_memory):
    x = tf.placeholder(tf.float32, [2, 2])
    n = tf.placeholder(tf.int32, [])
    _, m = _growing(x, n)
    total = tf.reduce_sum(m)
    value = np.array([[1.5, 2], [3, 4]], np.float32)
    with tf.Session(plan_memory=plan_memory) as sess:
        for trips in (0, 1, 2, 3, 1, 0):
            a = value[0, 0]
            expected = np.concatenate([value * a ** k for k in range(2 ** trips)]) if trips \
                else value
            if trips == 2:  # the rows: m, m a, then (m, m a) a
                expected = np.concatenate([value, value * a, value * a, value * a * a])
            got_m, got_total = sess.run([m, total], {x: value, n: trips})
            assert got_m.shape == (2 * 2 ** trips, 2)
            if trips < 3:
                np.testing.assert_allclose(got_m, expected, rtol=1e-6)
            assert got_total == pytest.approx(value.sum() * (1 + a) ** trips, rel=1e-5)
        executor = _staged(sess, [m, total])
        assert sorted(s[0][0] for s in executor.later) == [2, 4, 8, 16]


def test_gradient_through_a_loop_variable_whose_shape_varies(config, plan_memory):
    x = tf.placeholder(tf.float32, [2, 2])
    n = tf.placeholder(tf.int32, [])
    _, m = _growing(x, n)
    loss = tf.reduce_sum(m * m)
    (grad,) = tf.gradients(loss, x)
    value = np.array([[1.5, 2], [3, 4]], np.float32)
    # real TF 1.15 (control flow v1): loss and d loss / dx for n = 0, 1, 2, 3
    tf_numbers = {0: (31.25, [[3, 4], [6, 8]]),
                  1: (101.5625, [[103.5, 13], [19.5, 26]]),
                  2: (330.07812, [[641.0625, 42.25], [63.375, 84.5]]),
                  3: (1072.7539, [[3073.6875, 137.3125], [205.96875, 274.625]])}
    with tf.Session(config, plan_memory=plan_memory) as sess:
        for trips in (0, 1, 2, 3, 2):
            got_loss, got_grad = sess.run([loss, grad], {x: value, n: trips})
            # numpy: loss = |x|^2 (1 + a^2)^n, a = x[0, 0]
            a, norm = value[0, 0], (value ** 2).sum()
            expected = 2 * value * (1 + a * a) ** trips
            expected[0, 0] += norm * trips * (1 + a * a) ** max(trips - 1, 0) * 2 * a
            np.testing.assert_allclose(got_grad, expected, rtol=1e-5)
            assert got_loss == pytest.approx(tf_numbers[trips][0], rel=1e-6)
            np.testing.assert_allclose(got_grad, tf_numbers[trips][1], rtol=1e-6)


def test_gradient_of_a_varying_loop_against_finite_differences(plan_memory):
    def grown(x):
        _, m = _growing(x, tf.constant(2))
        return tf.reduce_sum(tf.tanh(m), 0)
    check_gradients(grown, [(2, 2)], plan_memory=plan_memory)  # raises when they differ


# -- (b) a dynamic_size TensorArray written at indices found at run time --------------------------
def _doubled_rows(x):
    n = tf.shape(x)[0]
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    _, ta = tf.while_loop(lambda i, ta: i < n,
                          lambda i, ta: (i + 1, ta.write(i, tf.gather(x, i) * 2)), (0, ta))
    return ta


def test_a_dynamic_array_grows_at_indices_the_loop_finds(config, plan_memory):
    x = tf.placeholder(tf.float32, [None, 3])
    ta = _doubled_rows(x)
    stacked, size = ta.stack(), ta.size()
    assert stacked.get_shape().as_list() == [None, 3]  # real TF 1.15: (?, 3)
    with tf.Session(config, plan_memory=plan_memory) as sess:
        # real TF 1.15: the rows written, doubled; (0, 3) and size 0 for no row
        for rows in (5, 1, 0, 40, 5):
            value = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
            got, got_size = sess.run([stacked, size], {x: value})
            assert got.shape == (rows, 3) and got_size == rows
            np.testing.assert_array_equal(got, value * 2)
    with tf.Session(config, plan_memory=plan_memory) as sess:
        sess.run(stacked, {x: np.ones((40, 3), np.float32)})
        # its capacity doubles: the body is bound again at 1, 2, 4, ..., 64 rows, not at each
        (state,) = _staged(sess, [stacked]).first.loop_states.values()
        assert sorted(key[1][0] for key in state.bound) == [1, 2, 4, 8, 16, 32, 64]


def test_reads_of_a_grown_array_have_its_element_shape(plan_memory):
    x = tf.placeholder(tf.float32, [None, 3])
    ta = _doubled_rows(x)
    row, rows, joined = ta.read(1), ta.gather([2, 0]), ta.concat()
    # real TF 1.15 (and 2.21's compat.v1): read (3,), gather (?, 3), concat (?,)
    assert row.get_shape().as_list() == [3]
    assert rows.get_shape().as_list() == [None, 3]
    assert joined.get_shape().as_list() == [None]
    value = np.arange(9, dtype=np.float32).reshape(3, 3)
    with tf.Session(plan_memory=plan_memory) as sess:
        got_row, got_rows = sess.run([row, rows], {x: value})
    np.testing.assert_array_equal(got_row, value[1] * 2)
    np.testing.assert_array_equal(got_rows, value[[2, 0]] * 2)


def test_a_dynamic_array_with_a_size_and_reads_in_the_body(plan_memory):
    ta = tf.TensorArray(tf.float32, size=2, dynamic_size=True, element_shape=[2])
    ta = ta.write(0, tf.constant([1.0, 1.0]))

    def body(i, ta):  # each element the one before plus one, past the first size
        return i + 1, ta.write(i, ta.read(i - 1) + 1.0)
    _, ta = tf.while_loop(lambda i, ta: i < 6, body, (1, ta))
    with tf.Session(plan_memory=plan_memory) as sess:
        got, size = sess.run([ta.stack(), ta.size()])
        assert size == 6
        np.testing.assert_array_equal(got, np.repeat(np.arange(1, 7.0)[:, None], 2, 1))
        np.testing.assert_array_equal(sess.run(ta.concat()), np.repeat(np.arange(1, 7.0), 2))


def test_gradient_through_a_growing_array(config, plan_memory):
    x = tf.placeholder(tf.float32, [None, 3])
    stacked = _doubled_rows(x).stack()
    weights = tf.constant(np.arange(1, 4, dtype=np.float32))
    (grad,) = tf.gradients(tf.reduce_sum(stacked * stacked * weights), x)
    with tf.Session(config, plan_memory=plan_memory) as sess:
        for rows in (2, 5, 0, 9):  # d/dx sum((2x)^2 w) = 8 x w
            value = np.random.default_rng(rows).standard_normal((rows, 3)).astype(np.float32)
            np.testing.assert_allclose(sess.run(grad, {x: value}), 8 * value * [1, 2, 3],
                                       rtol=1e-6)
    # real TF 1.15 (control flow v1): x of ones, sum((2x)^2) gives 8 everywhere
    (ones_grad,) = tf.gradients(tf.reduce_sum(stacked * stacked), x)
    with tf.Session(config, plan_memory=plan_memory) as sess:
        np.testing.assert_array_equal(sess.run(ones_grad, {x: np.ones((2, 3))}), np.full((2, 3), 8))


def test_gradient_through_a_growing_array_against_finite_differences(plan_memory):
    def stacked(x):
        return tf.tanh(_doubled_rows(x).stack())
    check_gradients(stacked, [(4, 3)], plan_memory=plan_memory)


def test_writing_past_an_array_that_does_not_grow_is_tensorflows_error():
    x = tf.placeholder(tf.float32, [None, 3])
    n = tf.shape(x)[0]
    ta = tf.TensorArray(tf.float32, size=2)
    _, ta = tf.while_loop(lambda i, ta: i < n,
                          lambda i, ta: (i + 1, ta.write(i, tf.gather(x, i) * 2)), (0, ta))
    sess = tf.Session()
    np.testing.assert_array_equal(sess.run(ta.stack(), {x: np.ones((2, 3))}), np.full((2, 3), 2))
    # real TF 1.15: "Tried to write to index 2 but array is not resizeable and size is: 2"
    with pytest.raises(LuaOpError, match="Tried to write to index 2 but array is not resizeable and size "
                             "is: 2"):
        sess.run(ta.stack(), {x: np.ones((4, 3))})
    np.testing.assert_array_equal(sess.run(ta.stack(), {x: np.ones((2, 3))}), np.full((2, 3), 2))


def test_a_loops_backward_bound_in_a_later_stage_reads_what_its_forward_kept(plan_memory):
    """p = x ** 3 by a loop, then masked: the loop's backward is bound after the mask ran."""
    x = tf.placeholder(tf.float32, [3])
    _, p = tf.while_loop(lambda i, p: i < 3, lambda i, p: (i + 1, p * x),
                         (tf.constant(0), tf.ones([3])))
    kept = tf.boolean_mask(p, p > 1)
    (grad,) = tf.gradients(tf.reduce_sum(kept), x)
    with tf.Session(plan_memory=plan_memory) as sess:
        for value in ([0.5, 2.0, 3.0], [2.0, 0.1, -1.0], [0.5, 2.0, 3.0]):
            value = np.array(value, np.float32)
            got_kept, got_grad = sess.run([kept, grad], {x: value})
            np.testing.assert_allclose(got_kept, value[value ** 3 > 1] ** 3, rtol=1e-6)
            np.testing.assert_allclose(got_grad, np.where(value ** 3 > 1, 3 * value ** 2, 0),
                                       rtol=1e-6)
        sess.run(grad, {x: value})
        plan = sess.memory_plan(grad, {x: value})
        # the forward kept p, 12 bytes, per each of its 3 iterations (not the int counter:
        # its gradient is zero, the backward does not read it)
        assert [(per, trips) for _, _, per, trips in plan.loops] == [(12, 3)]


# -- shape arguments from values known only when the graph runs (ValuesAtRunTime) -------------
def test_shapes_from_fed_values_and_their_gradients_against_tensorflow(plan_memory):
    """tf.reshape and tf.tile to a fed count, tf.zeros to a variable's value, tf.range to a
    max over data: each value computed first, the rest bound per value (one later stage each,
    reused when a value comes back)."""
    n = tf.placeholder(tf.int32, [], name="n")
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    w = tf.Variable(np.arange(4, dtype=np.float32), name="w")
    k = tf.Variable(3, name="k")
    y = tf.reshape(x * w, [n, -1])
    t = tf.tile(x * w, [n, 1])
    loss = tf.reduce_sum(y * y) + tf.reduce_sum(tf.sin(t))
    grads = tf.gradients(loss, [w, x])
    fetches = [loss, grads[0], grads[1], tf.shape(y)]
    z = tf.zeros([k]) + 1.0
    r = tf.range(tf.reduce_max(tf.cast(x, tf.int32)))
    # real TF 2.21, tf.compat.v1, x = arange(12).reshape(3, 4) / 7: [loss, dloss/dw, dloss/dx
    # row 0, tf.shape(y)] for n = 2, 3, 2, 6
    expected = {
        2: [53.82786, [3.42857, 6.4527, 8.92175, 20.1854], [0.0, 2.26534, 5.65023, 9.4017],
            [2, 6]],
        3: [57.4969, [5.14286, 7.49538, 7.66833, 19.31892], [0.0, 3.25515, 7.33249, 10.24541],
            [3, 4]],
        6: [68.504, [10.28572, 10.62342, 3.9081, 16.71948], [0.0, 6.22459, 12.37926, 12.77654],
            [6, 2]]}
    xv = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for count in (2, 3, 2, 6):
            got = sess.run(fetches, {n: count, x: xv})
            value, dw, dx, shape = expected[count]
            np.testing.assert_allclose(got[0], value, rtol=1e-5)
            np.testing.assert_allclose(got[1], dw, rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(got[2][0], dx, rtol=1e-5, atol=1e-5)
            assert got[3].tolist() == shape
        assert sess.run(z).tolist() == [1.0] * 3
        sess.run(tf.assign(k, 5))  # the variable's new value: another later stage
        assert sess.run(z).tolist() == [1.0] * 5
        assert sess.run(r, {x: xv * 7}).tolist() == list(range(11))
        staged = _staged(sess, fetches)
        assert isinstance(staged, StagedExecutor) and len(staged.later) == 3  # n = 2, 3, 6


def test_sequence_mask_of_fed_lengths_against_tensorflow():
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    maxlen = tf.placeholder(tf.int32, [], name="maxlen")
    mask = tf.sequence_mask(lengths)
    counted = tf.reduce_sum(tf.cast(tf.sequence_mask(lengths, maxlen), tf.float32), 1)
    with tf.Session() as sess:
        # real TF 2.21, tf.compat.v1: max(lengths) columns; maxlen's when given
        assert sess.run(mask, {lengths: [1, 3, 2]}).tolist() == [
            [True, False, False], [True, True, True], [True, True, False]]
        assert sess.run(mask, {lengths: [2, 0]}).tolist() == [[True, True], [False, False]]
        assert sess.run(counted, {lengths: [1, 3, 2], maxlen: 2}).tolist() == [1.0, 2.0, 2.0]


def test_a_mask_as_long_as_a_decoders_output():
    """tf.sequence_mask to tf.shape(logits)[1], the logits of a dynamic_decode (its length
    known once its loop ran): the loop first, the mask bound at its length (stages in
    stages, the outer stage's folded values handed to the inner one)."""
    batch, steps, vocab, units = 4, 5, 11, 8
    target = tf.placeholder(tf.int32, [batch, steps])
    lengths = tf.placeholder(tf.int32, [batch])
    embedding = tf.get_variable("embedding", [vocab, units])
    helper = tf.contrib.seq2seq.TrainingHelper(tf.nn.embedding_lookup(embedding, target),
                                               lengths)
    cell = tf.nn.rnn_cell.LSTMCell(units)
    decoder = tf.contrib.seq2seq.BasicDecoder(cell, helper, cell.zero_state(batch, tf.float32),
                                              output_layer=tf.layers.Dense(vocab))
    logits = tf.contrib.seq2seq.dynamic_decode(decoder)[0].rnn_output
    mask = tf.sequence_mask(lengths, tf.shape(logits)[1], dtype=tf.float32)
    loss = tf.contrib.seq2seq.sequence_loss(logits, target[:, :tf.shape(logits)[1]], mask)
    step = tf.train.AdamOptimizer(0.01).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for length in ([5, 3, 4, 2], [3, 3, 1, 2]):
            feed = {target: np.arange(20).reshape(4, 5) % vocab, lengths: length}
            got, _ = sess.run([mask, step], feed)
            assert got.shape == (4, max(length))
            np.testing.assert_array_equal(got.sum(1), length)


def test_one_hot_to_a_fed_depth():
    """tf.one_hot with its depth a tensor (TF takes one): folded when known at bind, else the
    depth first when the graph runs; the static shape's new axis unknown (TF's (?, ?))."""
    depth = tf.placeholder(tf.int32, [], name="depth")
    ids = tf.placeholder(tf.int64, [None], name="ids")
    fed, by_max = tf.one_hot(ids, depth), tf.one_hot(ids, tf.reduce_max(ids) + 1, axis=0)
    assert fed.get_shape().as_list() == [None, None]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(fed, {depth: 4, ids: [1, 2]}),
                                      np.eye(4)[[1, 2]])
        got = sess.run([fed, by_max], {depth: 3, ids: [0, 2]})
        np.testing.assert_array_equal(got[0], np.eye(3)[[0, 2]])
        np.testing.assert_array_equal(got[1], np.eye(3)[[0, 2]].T)
