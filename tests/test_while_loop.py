"""tf.while_loop: one node holding its cond and body (issue 25), values against Python and
numpy, gradients against PyTorch autograd over the same unrolled computation and finite
differences, with memory planning on and off; TF 1.15's errors."""
import collections
import os
import re
import signal
import threading

import numpy as np
import pytest
import torch

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _session(plan_memory, config="cpu"):
    return tf.Session(config, plan_memory=plan_memory)


def test_counter_and_doubling(plan_memory, config):
    i, x = tf.while_loop(lambda i, x: i < 5, lambda i, x: (i + 1, x * 2.0),
                         (tf.constant(0), tf.constant(1.5)))
    assert i.get_shape() == tf.TensorShape([]) and x.dtype == tf.float32
    assert _session(plan_memory, config).run([i, x]) == [5, 48.0]


def test_structures_come_back_as_they_went_in(plan_memory):
    pair = collections.namedtuple("pair", "a b")
    one = tf.constant(1.0)
    as_list = tf.while_loop(lambda v: v < 10, lambda v: v * 2, [one])  # TF 1.15: the tensor
    single = tf.while_loop(lambda v: v < 10, lambda v: v * 3, one)
    nested = tf.while_loop(lambda p: p.a < 10, lambda p: [pair(p.a * 2, p.b + 1)],
                           [pair(one, tf.constant(0))])
    as_dict = tf.while_loop(lambda d: d["a"] < 10, lambda d: [{"a": d["a"] * 2, "b": d["b"]}],
                            [{"a": one, "b": tf.constant([1, 2])}])
    same = tf.while_loop(lambda v: v < 10, lambda v: [v * 2], [one], return_same_structure=True)
    sess = _session(plan_memory)
    assert sess.run(as_list) == 16.0 and sess.run(single) == 27.0
    (got,) = sess.run(nested)
    assert isinstance(got, pair) and got == pair(16.0, 4)
    (got,) = sess.run(as_dict)
    assert got["a"] == 16.0 and got["b"].tolist() == [1, 2]
    assert sess.run(same) == [16.0]


def test_a_data_dependent_trip_count(plan_memory):
    # halve x until it is below the limit fed: the number of trips comes from the data
    x = tf.placeholder(tf.float32, [])
    limit = tf.placeholder(tf.float32, [])
    n, y = tf.while_loop(lambda n, y: y > limit, lambda n, y: (n + 1, y / 2.0),
                         (tf.constant(0), x))
    sess = _session(plan_memory)
    for value, bound in ((100.0, 1.0), (100.0, 30.0), (0.5, 1.0)):
        trips, expected = 0, value
        while expected > bound:
            trips, expected = trips + 1, expected / 2
        assert sess.run([n, y], {x: value, limit: bound}) == [trips, np.float32(expected)]
    (grad,) = tf.gradients(y, x)
    assert sess.run(grad, {x: 100.0, limit: 1.0}) == pytest.approx(2.0 ** -7)


def test_x_to_the_n_and_its_gradient_against_torch(plan_memory, config):
    x = tf.placeholder(tf.float32, [3])
    n = tf.placeholder(tf.int32, [])
    _, power = tf.while_loop(lambda i, p: i < n, lambda i, p: (i + 1, p * x),
                             (tf.constant(0), tf.ones([3])))
    (grad,) = tf.gradients(tf.reduce_sum(power), x)
    values = np.array([0.5, -1.5, 2.0], np.float32)
    sess = _session(plan_memory, config)
    for exponent in (0, 1, 4):
        reference = torch.tensor(values, requires_grad=True)
        unrolled = torch.ones(3) + 0 * reference  # x^0: a gradient of zeros
        for _ in range(exponent):
            unrolled = unrolled * reference
        unrolled.sum().backward()
        got, got_grad = sess.run([power, grad], {x: values, n: exponent})
        np.testing.assert_allclose(got, unrolled.detach().numpy(), rtol=1e-6)
        np.testing.assert_allclose(got_grad, reference.grad.numpy(), rtol=1e-6)


def _unrolled_matmul(x0, w, trips):
    """The loop below, unrolled in PyTorch: h <- tanh(h @ w) + x0, `trips` times."""
    h = x0
    for _ in range(trips):
        h = torch.tanh(h @ w) + x0
    return h


def test_matmul_by_a_variable_against_torch_and_finite_differences(plan_memory):
    rng = np.random.default_rng(0)
    w0 = rng.normal(0, 0.5, (4, 4)).astype(np.float32)
    x0 = rng.normal(0, 1, (2, 4)).astype(np.float32)
    w = tf.Variable(w0)
    x = tf.placeholder(tf.float32, [2, 4])
    _, h = tf.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w)) + x),
                         (tf.constant(0), x))
    loss = tf.reduce_sum(h * h)
    grad_w, grad_x = tf.gradients(loss, [w, x])
    sess = _session(plan_memory)
    sess.run(tf.global_variables_initializer())
    got = sess.run([loss, grad_w, grad_x], {x: x0})
    tw, tx = torch.tensor(w0, requires_grad=True), torch.tensor(x0, requires_grad=True)
    reference = (_unrolled_matmul(tx, tw, 3) ** 2).sum()
    reference.backward()
    np.testing.assert_allclose(got[0], reference.item(), rtol=1e-5)
    np.testing.assert_allclose(got[1], tw.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[2], tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    # finite differences on one weight, in float64 through torch's same formula
    step, (r, c) = 1e-3, (1, 2)
    shifted = [w0.astype(np.float64).copy() for _ in range(2)]
    shifted[0][r, c] += step
    shifted[1][r, c] -= step
    values = [(_unrolled_matmul(torch.tensor(x0, dtype=torch.float64), torch.tensor(s), 3)
               ** 2).sum().item() for s in shifted]
    assert got[1][r, c] == pytest.approx((values[0] - values[1]) / (2 * step), rel=1e-3)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_training_a_variable_used_in_the_body(optimizer, plan_memory):
    rng = np.random.default_rng(1)
    x0 = rng.normal(0, 1, (8, 3)).astype(np.float32)
    target = rng.normal(0, 0.3, (8, 3)).astype(np.float32)
    w = tf.Variable(rng.normal(0, 0.3, (3, 3)).astype(np.float32))
    _, h = tf.while_loop(lambda i, h: i < 4, lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w))),
                         (tf.constant(0), tf.constant(x0)))
    loss = tf.reduce_mean((h - tf.constant(target)) ** 2)
    train = (tf.train.GradientDescentOptimizer(2.0) if optimizer == "sgd"
             else tf.train.AdamOptimizer(0.05)).minimize(loss)
    sess = _session(plan_memory)
    sess.run(tf.global_variables_initializer())
    first = sess.run(loss)
    for _ in range(30):
        sess.run(train)
    assert sess.run(loss) < 0.85 * first


def test_loops_inside_loops(plan_memory):
    def outer(i, total):
        _, inner = tf.while_loop(lambda j, t: j < i,
                                 lambda j, t: (j + 1, t + tf.cast(j * i, tf.float32)),
                                 (tf.constant(0), total))
        return i + 1, inner
    x = tf.placeholder(tf.float32, [])
    _, total = tf.while_loop(lambda i, t: i < 5, outer, (tf.constant(0), x))
    expected = sum(j * i for i in range(5) for j in range(i))
    sess = _session(plan_memory)
    assert sess.run(total, {x: 0.5}) == 0.5 + expected
    (grad,) = tf.gradients(total, x)
    assert sess.run(grad, {x: 0.5}) == 1.0


def test_maximum_iterations_stops_an_endless_loop(plan_memory):
    x = tf.while_loop(lambda x: tf.constant(True), lambda x: x + 1.0, [tf.constant(0.0)],
                      maximum_iterations=7)
    limit = tf.placeholder(tf.int32, [])
    tripled = tf.while_loop(lambda v: v < 100, lambda v: v * 3, tf.constant(1.0),
                            maximum_iterations=limit)
    pair = tf.while_loop(lambda a, b: a < 100, lambda a, b: (a * 3, b + 1),
                         (tf.constant(1.0), tf.constant(0)), maximum_iterations=limit)
    sess = _session(plan_memory)
    assert sess.run(x) == 7.0
    assert [sess.run(tripled, {limit: n}) for n in (0, 2, 10)] == [1.0, 9.0, 243.0]
    assert sess.run(pair, {limit: 3}) == (27.0, 3)


def test_an_assignment_in_the_body_runs_every_iteration(plan_memory):
    counter = tf.Variable(0.0)
    i = tf.while_loop(lambda i: i < 6, lambda i: tf.identity(i + 1) if False else
                      _after(tf.assign_add(counter, 2.0), i + 1), [tf.constant(0)])
    sess = _session(plan_memory)
    sess.run(tf.global_variables_initializer())
    assert sess.run(i) == 6 and sess.run(counter) == 12.0


def _after(op, value):
    with tf.control_dependencies([op]):
        return tf.identity(value)


def test_shape_invariants_give_the_static_shape_and_a_loop_var_keeps_its_shape(plan_memory):
    x = tf.placeholder(tf.float32, [None, 2])
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2.0),
                         (tf.constant(0), x), shape_invariants=(tf.TensorShape([]),
                                                                 tf.TensorShape([None, None])))
    assert y.get_shape().as_list() == [None, None]
    values = np.ones((3, 2), np.float32)
    np.testing.assert_array_equal(_session(plan_memory).run(y, {x: values}), values * 8)


def test_errors_as_tensorflow_raises_them():
    one = tf.constant(1.0)
    with pytest.raises(TypeError, match="cond must be callable"):
        tf.while_loop(1, lambda v: v, [one])
    with pytest.raises(TypeError, match="bool"):
        tf.while_loop(lambda v: v, lambda v: v * 2, [one])
    with pytest.raises(ValueError, match="scalar"):
        tf.while_loop(lambda v: tf.constant([True, False]), lambda v: v * 2, [one])
    with pytest.raises(ValueError, match="same nested structure"):
        tf.while_loop(lambda a, b: a < 10, lambda a, b: (a,), (one, one))
    with pytest.raises(TypeError, match="int32"):
        tf.while_loop(lambda v: v < 10, lambda v: tf.cast(v, tf.int32), [one])
    vector = tf.constant([1.0], name="vector")
    with pytest.raises(ValueError, match=r"Input tensor 'vector:0' enters the loop with shape "
                                         r"\(1,\), but has shape \(2,\) after one iteration"):
        tf.while_loop(lambda v: tf.reduce_sum(v) < 10, lambda v: tf.concat([v, v], 0), [vector])
    with pytest.raises(ValueError, match="not compatible with the initial shape"):
        tf.while_loop(lambda v: v < 10, lambda v: v, [one], shape_invariants=[[2]])


def test_a_shape_its_invariant_lets_vary_is_known_once_the_loop_ran(plan_memory):
    # as real TF 1.15: the static shape is the invariant's, the value as many rows as ran
    vector = tf.constant([1.0], name="growing")
    doubled = tf.while_loop(lambda v: tf.reduce_sum(v) < 10, lambda v: tf.concat([v, v], 0),
                            [vector], shape_invariants=[tf.TensorShape([None])])
    fed = tf.placeholder(tf.float32, [None], name="fed")
    grown = tf.while_loop(lambda v: tf.reduce_sum(v) < 10, lambda v: tf.concat([v, v], 0),
                          [fed], shape_invariants=[tf.TensorShape([None])])
    assert grown.get_shape().as_list() == [None]
    with tf.Session(plan_memory=plan_memory) as sess:
        np.testing.assert_array_equal(sess.run(doubled), np.ones(16))
        np.testing.assert_array_equal(sess.run(grown, {fed: [3.0, 4.0]}), [3, 4, 3, 4])
        np.testing.assert_array_equal(sess.run(grown * 2, {fed: [1.0]}), np.full(16, 2.0))
        np.testing.assert_array_equal(sess.run(grown * 2, {fed: [6.0]}), [12, 12])


def test_an_error_in_the_body_names_the_node_and_the_session_runs_on():
    x = tf.placeholder(tf.int32, [2])
    index = tf.placeholder(tf.int32, [])
    looped = tf.while_loop(lambda i: i < 3, lambda i: i + tf.gather(x, index), [tf.constant(0)])
    sess = tf.Session()
    with pytest.raises(tf.nnvm.errors.TinyflowError, match="gather"):
        sess.run(looped, {x: [1, 1], index: 7})
    assert sess.run(looped, {x: [1, 1], index: 0}) == 3


def test_ctrl_c_and_deadlines_stop_an_endless_loop():
    endless = tf.while_loop(lambda x: x > -1.0, lambda x: x + 1.0, [tf.constant(0.0)])
    sess = tf.Session()
    with pytest.raises(tf.errors.DeadlineExceededError):
        sess.run(endless, options=tf.RunOptions(timeout_in_ms=300))
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        sess.run(endless)
    timer.join()
    assert sess.run(tf.while_loop(lambda x: x < 3, lambda x: x + 1, [tf.constant(0)])) == 3


def test_the_memory_plan_shows_what_the_backward_keeps(plan_memory):
    x = tf.placeholder(tf.float32, [3])
    _, y = tf.while_loop(lambda i, y: i < 5, lambda i, y: (i + 1, y * x), (tf.constant(0), x))
    (grad,) = tf.gradients(tf.reduce_sum(y), x)
    sess = _session(plan_memory)
    feed = {x: [1.0, 2.0, 3.0]}
    forward_only = sess.memory_plan(y, feed)
    assert [row[2] for row in forward_only.loops] == [0]  # no backward: nothing kept
    np.testing.assert_allclose(sess.run(grad, feed), [6.0, 192.0, 1458.0])  # x^6: 6 x^5
    report = sess.memory_plan(grad, feed)
    loop, backward = report.loops
    # one iteration keeps what y * x's gradient reads of it: y, 3 float32 (x is captured,
    # the same every iteration; nothing reads the int32 counter)
    assert loop[0] == "while/while" and loop[2:] == (3 * 4, 5)
    assert report.kept_by_loops == 12 * 5 and loop[1] > 0 and backward[1] > 0
    assert "kept for the backward 12 bytes per iteration x 5 trips = 60 bytes" in str(report)


def test_viz_draws_the_loop_with_its_cond_body_and_nested_loop_as_clusters():
    from tinyflow.frontend import viz

    def body(i, y):
        inner = tf.while_loop(lambda j: j < i, lambda j: j + 1, [tf.constant(0)])
        return i + 1, y * tf.cast(inner, tf.float32)
    _, y = tf.while_loop(lambda i, y: i < 3, body, (tf.constant(0), tf.constant(2.0)))
    dot = viz.to_dot(y)
    for cluster in ("cluster_n2_cond_", "cluster_n2_body_"):
        assert f"subgraph {cluster} {{" in dot
    assert ': body"; style=rounded' in dot and "[style=dotted, label=\"body\"]" in dot
    nested = [line for line in dot.splitlines()
              if re.fullmatch(r"\s*subgraph cluster_n2_body_\d+_(cond|body)_ \{", line)]
    assert len(nested) == 2  # the inner loop's cond and body, inside the outer body


def test_gradients_through_a_loop_by_finite_differences(plan_memory):
    from tinyflow.frontend.testing import check_gradients

    def looped(x, w):  # a captured tensor, a loop variable, a matmul per iteration
        return tf.while_loop(lambda i, h: i < 3,
                             lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w)) * 0.5 + h),
                             (tf.constant(0), x))[1]
    check_gradients(looped, [(2, 3), (3, 3)], plan_memory=plan_memory)


@pytest.mark.parametrize("memory", [None, "mirror"])
def test_the_backward_reads_the_forwards_intermediates_not_a_recompute(plan_memory, memory):
    """The gradient of a dropout inside the body uses the masks the forward drew (the loop
    keeps them: TKeep), also under a memory= policy, whose backward recomputes the rest of
    the body: d/dw sum_t dropout(x * w)_t = sum_t mask_t * x, the masks read off the rows the
    loop wrote (nonzero where kept, each scaled by 1 / keep_prob)."""
    x = tf.placeholder(tf.float32, [64])
    w = tf.Variable(np.linspace(0.5, 1.5, 64).astype(np.float32))

    def body(i, total, rows):
        dropped = tf.nn.dropout(x * w, keep_prob=0.5, seed=3)
        return i + 1, total + dropped, rows.write(i, dropped)
    _, total, rows = tf.while_loop(lambda i, *_: i < 4, body, (
        tf.constant(0), tf.zeros([64]), tf.TensorArray(tf.float32, size=4, element_shape=[64])))
    (grad,) = tf.gradients(tf.reduce_sum(total), w)
    values = np.random.default_rng(2).uniform(1.0, 2.0, 64).astype(np.float32)
    sess = tf.Session(plan_memory=plan_memory, memory=memory)
    sess.run(tf.global_variables_initializer())
    written, got = sess.run([rows.stack(), grad], {x: values})
    masks = (written != 0) * 2.0
    assert 0 < masks.mean() < 2  # some dropped, some kept, and the four draws differ
    assert not all(np.array_equal(masks[0], m) for m in masks[1:])
    np.testing.assert_allclose(got, masks.sum(0) * values, rtol=1e-6)


def test_a_loop_variable_nothing_reads_after_the_loop_still_passes_its_gradient_on():
    """a's output is unread (its head is zero), but a reaches b, which is read: a's gradient
    flows; c is unread and reaches only itself: zero all the way, skipped.  Against torch."""
    x = tf.placeholder(tf.float32, [3])

    def body(i, a, b, c):
        return i + 1, a * x, b + a * a, c * x
    _, _, b, _ = tf.while_loop(lambda i, *_: i < 3, body,
                               (tf.constant(0), x, tf.zeros([3]), x * 2.0))
    (grad,) = tf.gradients(tf.reduce_sum(b), x)
    values = np.array([0.5, -1.0, 1.5], np.float32)
    got_b, got = tf.Session().run([b, grad], {x: values})
    reference = torch.tensor(values, requires_grad=True)
    a, total = reference, torch.zeros(3)
    for _ in range(3):
        a, total = a * reference, total + a * a
    total.sum().backward()
    np.testing.assert_allclose(got_b, total.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(got, reference.grad.numpy(), rtol=1e-6)


def test_a_gradient_built_under_control_dependencies_reaching_a_fed_tensor():
    """minimize inside ``with tf.control_dependencies(update_ops)`` (batch norm's), the update
    reading a fed tensor: the loop's gradient body stays a subgraph of its own (the with
    block's dependencies go on the loop's backward node, not into its body), as in TF."""
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable([0.5, -1.0, 2.0], name="w")
    counter = tf.Variable(0.0, name="counter")
    _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * w), [0, x])
    update = tf.assign_add(counter, tf.reduce_sum(x))
    with tf.control_dependencies([update]):
        step = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(y))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step, {x: [[1.0, 2.0, 3.0]]})
        # d sum(x w^3) / dw = 3 x w^2; the update ran once
        np.testing.assert_allclose(sess.run(w), [0.5 - 0.1 * 0.75, -1.0 - 0.1 * 6.0,
                                                 2.0 - 0.1 * 36.0], rtol=1e-6)
        assert sess.run(counter) == 6.0


def test_maximum_iterations_tells_list_from_tuple_as_real_tf():
    # real TF (tf.compat.v1, control flow v1): with maximum_iterations the loop variables sit
    # beside a counter, so a list's body giving a tuple is a TypeError ("The two namedtuples
    # don't have the same sequence type"); without, only inner levels are told apart; a single
    # variable's body giving (x,) or [x] is a ValueError ("is a sequence, while ... is not")
    zero, one = tf.constant(0), tf.constant(1.0)
    def cond(i, *_):
        return i < 3
    with pytest.raises(TypeError, match="don't have the same sequence type"):
        tf.while_loop(cond, lambda i, x: (i + 1, x * 2), [zero, one], maximum_iterations=5)
    with pytest.raises(TypeError, match="has type tuple, while second .* has type list"):
        tf.while_loop(cond, lambda i, x: [i + 1, x * 2], (zero, one), maximum_iterations=5)
    with pytest.raises(TypeError, match="don't have the same sequence type"):
        tf.while_loop(cond, lambda i, x: (i + 1, (x[0], x[1])), (zero, [one, one]))
    with pytest.raises(TypeError, match="don't have the same sequence type"):
        tf.while_loop(cond, lambda i, x: (i + 1, (x[0], x[1])), (zero, [one, one]),
                      maximum_iterations=tf.constant(5))
    for result in (lambda i: (i + 1,), lambda i: [i + 1]):
        with pytest.raises(ValueError, match="is a sequence, while"):
            tf.while_loop(cond, result, [zero], maximum_iterations=5)
    with pytest.raises(ValueError, match="same number of elements"):
        tf.while_loop(cond, lambda i, x: (i + 1,), (zero, one), maximum_iterations=5)
    # what real TF accepts, with its values: [3, 8.0] and 3 (the single variable unpacked)
    loops = [tf.while_loop(cond, lambda i, x: (i + 1, x * 2), [zero, one]),
             tf.while_loop(cond, lambda i, x: [i + 1, x * 2], [zero, one], maximum_iterations=5),
             tf.while_loop(cond, lambda i: i + 1, [zero], maximum_iterations=5),
             tf.while_loop(cond, lambda i: (i + 1,), [zero]),
             tf.while_loop(cond, lambda i: i + 1, [zero], maximum_iterations=tf.constant(5))]
    with tf.Session() as sess:
        assert sess.run(loops) == [[3, 8.0], [3, 8.0], 3, 3, 3]
