"""The gradient of a tf.cond whose branches write variables or run Python (the ``if`` node,
issue 25): the taken branch's gradient flows to the tensors the branches read, against
numbers from real TensorFlow and against finite differences; the writes are not done again
by the backward, nor is Python run again."""
import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.nnvm.errors import GraphError

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _writing_cond():
    pred = tf.placeholder(tf.bool, [], name="pred")
    x = tf.placeholder(tf.float32, [2], name="x")
    v = tf.Variable([1.0, 2.0], name="v")
    u = tf.Variable([0.5, -1.0], name="u")
    w = tf.Variable([0.3, -0.7], name="w")

    def true_fn():
        with tf.control_dependencies([tf.assign_add(v, x)]):
            return tf.tanh(v * x * w)

    def false_fn():
        with tf.control_dependencies([tf.scatter_update(u, [1], [5.0])]):
            return tf.exp(x * w) * u
    out = tf.cond(pred, true_fn, false_fn)
    assert out.op.type == "If"
    loss = tf.reduce_sum(out * tf.constant([1.0, -2.0]), name="loss")
    return pred, x, (v, u), loss, tf.gradients(loss, [x, w])


# Real TensorFlow 2.21's tf.compat.v1 (graph mode, resource variables; control flow v1 and v2
# alike) on the program of _writing_cond, x = [0.4, -0.6], pred True, False, True:
# [loss, dloss/dx, dloss/dw], then (v, u) after the run
TF_NUMBERS = [
    (True, [-0.890474259853363, [0.4083654284477234, 1.4126397371292114],
            [0.5444872379302979, 1.2108341455459595]], ([1.4, 1.4], [0.5, -1.0])),
    (False, [-14.655867576599121, [0.1691245287656784, 10.653731346130371],
             [0.22549937665462494, 9.131770133972168]], ([1.4, 1.4], [0.5, 5.0])),
    (True, [-0.43510106205940247, [0.5155692100524902, 1.0024981498718262],
            [0.6874255537986755, 0.8592841625213623]], ([1.8, 0.8], [0.5, 5.0])),
]


def _check_against_tensorflow(sess, pred, x, variables, fetches):
    for taken, want, after in TF_NUMBERS:
        got = sess.run(fetches, {pred: taken, x: [0.4, -0.6]})
        for value, expected in zip(got, want):
            np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)
        for var, expected in zip(variables, after):  # each write done once, by the forward
            np.testing.assert_allclose(sess.run(var), expected, rtol=1e-6)


def test_gradient_of_a_cond_writing_variables_against_tensorflow(plan_memory):
    pred, x, variables, loss, grads = _writing_cond()
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    _check_against_tensorflow(sess, pred, x, variables, [loss] + grads)


def test_the_gradient_comes_back_through_the_meta_graph(tmp_path):
    _, _, _, loss, grads = _writing_cond()
    names = [loss.name] + [g.name for g in grads]
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    path = tf.train.Saver().save(sess, str(tmp_path / "cond"))
    tf.reset_default_graph()
    saver = tf.train.import_meta_graph(path + ".meta")
    fresh = tf.Session()
    saver.restore(fresh, path)
    graph = tf.get_default_graph()
    variables = [graph.get_tensor_by_name(f"{n}:0") for n in ("v", "u")]
    _check_against_tensorflow(fresh, graph.get_tensor_by_name("pred:0"),
                              graph.get_tensor_by_name("x:0"), variables,
                              [graph.get_tensor_by_name(n) for n in names])


def test_gradient_of_a_cond_running_python_against_finite_differences(plan_memory):
    """Two outputs, one unused by the loss; Python runs once per run, the gradient's too (on
    a tensor of its own: py_func has no gradient, as in TensorFlow)."""
    calls = []

    def record(value):
        calls.append(value.copy())
        return value * 3.0
    pred = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float64, [3])
    z = tf.placeholder(tf.float64, [3])
    w = tf.Variable(np.array([0.5, -1.5, 2.0]), name="w")

    def python_branch():
        side = tf.py_func(record, [z], tf.float64)
        side.set_shape([3])
        return side + tf.tanh(x * w), x * 2.0

    def plain_branch():
        return tf.exp(x * w) * x, tf.square(x)
    out, _ = tf.cond(pred, python_branch, plain_branch)
    loss = tf.reduce_sum(out * out)
    grads = tf.gradients(loss, [x, w])
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    x0, w0, z0 = np.array([0.3, -0.8, 0.6]), sess.run(w), [1.0, -2.0, 0.5]

    def loss_at(taken, xv, wv):
        w.load(wv, sess)
        return sess.run(loss, {pred: taken, x: xv, z: z0})
    eps = 1e-6
    for taken in (True, False):
        calls.clear()
        got = sess.run(grads, {pred: taken, x: x0, z: z0})
        assert len(calls) == (1 if taken else 0)
        dx = [(loss_at(taken, x0 + e, w0) - loss_at(taken, x0 - e, w0)) / (2 * eps)
              for e in np.eye(3) * eps]
        dw = [(loss_at(taken, x0, w0 + e) - loss_at(taken, x0, w0 - e)) / (2 * eps)
              for e in np.eye(3) * eps]
        w.load(w0, sess)
        np.testing.assert_allclose(got[0], dx, rtol=1e-5, err_msg=f"dx, taken {taken}")
        np.testing.assert_allclose(got[1], dw, rtol=1e-5, err_msg=f"dw, taken {taken}")


def test_what_gets_no_gradient_and_a_python_value_the_gradient_needs():
    pred = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [2])
    n = tf.placeholder(tf.int32, [2])
    unread = tf.placeholder(tf.float32, [2])
    v = tf.Variable([1.0, 1.0])

    def writes():
        with tf.control_dependencies([tf.assign_add(v, x)]):
            return x * tf.cast(n, tf.float32)
    out = tf.cond(pred, writes, lambda: x + 1.0 + unread * 0.0)
    gx, gn, gp = tf.gradients(tf.reduce_sum(out), [x, n, pred])
    assert gx is not None and gn is None and gp is None  # ints and the predicate: none
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    feed = {x: [1.0, 2.0], n: [3, 4], unread: [0.0, 0.0]}
    np.testing.assert_array_equal(sess.run(gx, {**feed, pred: True}), [3.0, 4.0])
    np.testing.assert_array_equal(sess.run(gx, {**feed, pred: False}), [1.0, 1.0])

    def python_times_x():
        side = tf.py_func(lambda a: a * 2, [x], tf.float32)
        side.set_shape([2])
        return side * x
    with pytest.raises(GraphError, match=r"needs the value of op 'py_func'.*runs Python"):
        tf.gradients(tf.cond(pred, python_times_x, lambda: x), x)


def test_a_writing_cond_inside_a_loop_against_torch():
    """tanh(a) * 2 for two iterations (each adding 1 to a counter), a * a after."""
    x = tf.placeholder(tf.float32, [2])
    counter = tf.Variable(0.0)

    def body(i, a):
        def counting():
            with tf.control_dependencies([tf.assign_add(counter, 1.0)]):
                return tf.tanh(a) * 2.0
        return i + 1, tf.cond(i < 2, counting, lambda: a * a)
    _, y = tf.while_loop(lambda i, a: i < 4, body, [tf.constant(0), x])
    grad = tf.gradients(tf.reduce_sum(y), x)[0]
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    got = sess.run([y, grad], {x: [0.3, -0.5]})
    tx = torch.tensor([0.3, -0.5], dtype=torch.float64, requires_grad=True)
    a = tx
    for i in range(4):
        a = torch.tanh(a) * 2 if i < 2 else a * a
    a.sum().backward()
    np.testing.assert_allclose(got[0], a.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(got[1], tx.grad.numpy(), rtol=1e-5)
    assert sess.run(counter) == 2.0  # the backward wrote nothing


# -- a cond without side effects: both branches run, each output selected (the select form) -----
def _pure_conds():
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.cond(x > 0, lambda: tf.sqrt(x), lambda: tf.zeros_like(x))
    z = tf.cond(x > 0, lambda: tf.log(x), lambda: x * 2.0)
    nested = tf.cond(x > 0, lambda: tf.cond(x > 2, lambda: x ** 3, lambda: tf.sqrt(x) * x),
                     lambda: tf.sqrt(-x) + x * x)
    d_nested = tf.gradients(nested, x)[0]

    def body(i, acc):
        return i + 1, acc + tf.cond(acc > 1.0, lambda: tf.sqrt(acc - 1.0), lambda: acc * x)
    _, looped = tf.while_loop(lambda i, a: i < 4, body, [tf.constant(0), x])
    fetches = [y, z, tf.gradients(y + z, x)[0], nested, d_nested,
               tf.gradients(d_nested, x)[0], looped, tf.gradients(looped, x)[0]]
    return x, fetches


# Real TensorFlow 2.21's tf.compat.v1 (graph mode) on _pure_conds' program: [y, z, d(y + z)/dx,
# nested, its first and second derivatives, the loop's output, its derivative] at each x.  The
# branch not taken has a slope of NaN or inf there (sqrt or log of x <= 0): TF runs only the
# branch taken, so its gradient never sees them.
PURE_TF_NUMBERS = {
    -1.0: [0.0, -2.0, 2.0, 2.0, -2.5, 1.75, 0.0, 0.0],
    0.0: [0.0, 0.0, 2.0, 0.0, np.inf, np.inf, 0.0, 1.0],
    1.5: [1.2247449, 0.4054651, 1.0749149, 1.8371174, 1.8371173, 0.61237246, 6.779849,
          4.146144],
    4.0: [2.0, 1.3862944, 0.5, 64.0, 48.0, 24.0, 13.62354, 2.191835],
}


def test_a_branch_not_taken_sends_no_nan_gradient_against_tensorflow(plan_memory):
    x, fetches = _pure_conds()
    with tf.Session(plan_memory=plan_memory) as sess:
        for value, expected in PURE_TF_NUMBERS.items():
            got = sess.run(fetches, {x: value})
            np.testing.assert_allclose(np.array(got, np.float64), expected, rtol=2e-6,
                                       err_msg=f"x = {value}")


def test_variables_read_in_one_branch_against_tensorflow():
    v = tf.placeholder(tf.float32, [3], name="v")
    w = tf.Variable([1.0, 2.0, 3.0], name="w")
    pred = tf.placeholder(tf.bool, [], name="pred")
    s = tf.cond(pred, lambda: tf.reduce_sum(tf.sqrt(v) * w), lambda: tf.reduce_sum(v * v))
    grads = tf.gradients(s, [v, w])
    # real TF 2.21, tf.compat.v1, v = [-1, 4, 0]: the branch taken's NaN and inf stay (TF's
    # too); the branch not taken gives zeros, here to w
    expected = {True: [np.nan, [np.nan, 0.5, np.inf], [np.nan, 2.0, 0.0]],
                False: [17.0, [-2.0, 8.0, 0.0], [0.0, 0.0, 0.0]]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for p, (value, dv, dw) in expected.items():
            got = sess.run([s] + grads, {v: [-1.0, 4.0, 0.0], pred: p})
            np.testing.assert_allclose(got[0], value)
            np.testing.assert_allclose(got[1], dv)
            np.testing.assert_allclose(got[2], dw)


def test_the_switches_cost_nothing_forward():
    """Each branch reads an outer float tensor through a branch_input (TF's Switch) for its
    gradient; the bound graph reads the tensor itself: no copy, the plan as without them."""
    x = tf.placeholder(tf.float32, [64, 64], name="x")
    pred = tf.placeholder(tf.bool, [], name="pred")
    out = tf.cond(pred, lambda: tf.tanh(x) * 2.0, lambda: tf.sigmoid(x))
    switches = [op for op in tf.get_default_graph().get_operations() if op.type == "Switch"]
    assert len(switches) == 2
    with tf.Session() as sess:
        plan = str(sess.memory_plan(out, {x: np.zeros((64, 64)), pred: True}))
        assert "branch_input" not in plan
        value = np.random.RandomState(0).randn(64, 64).astype(np.float32)
        np.testing.assert_allclose(sess.run(out, {x: value, pred: False}),
                                   1 / (1 + np.exp(-value)), rtol=1e-6)


# -- only the branch taken runs (TF's semantics; the ops of a branch are guarded: TGuard) -------
def test_the_branch_not_taken_does_not_run_against_tensorflow(plan_memory):
    """An index out of range in the branch not taken, forward and backward, and in a loop's
    cond reading a TensorArray past its end: no error, TF's numbers."""
    i = tf.placeholder(tf.int32, [], name="i")
    w = tf.Variable([1.0, 2.0, 3.0], name="w")
    y = tf.cond(i < 3, lambda: tf.gather(w, i) * 2.0 + tf.reduce_sum(tf.sqrt(w)),
                lambda: tf.reduce_sum(w * w))
    grad = tf.gradients(y, w)[0]
    array = tf.TensorArray(tf.float32, size=3).unstack(tf.constant([10.0, 20.0, 30.0]))

    def body(t, total):
        return t + 1, total + tf.cond(t < 3, lambda: array.read(t), lambda: tf.constant(-1.0))
    _, total = tf.while_loop(lambda t, _: t < 5, body, [tf.constant(0), tf.constant(0.0)])
    # real TF 2.21, tf.compat.v1: [y, dy/dw] at i = 1 and 5, then the loop's total
    expected = {1: [8.146265, [0.5, 2.3535533, 0.28867513]], 5: [14.0, [2.0, 4.0, 6.0]]}
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for index, (value, dw) in expected.items():
            got = sess.run([y, grad], {i: index})
            np.testing.assert_allclose(got[0], value, rtol=1e-6)
            np.testing.assert_allclose(got[1], dw, rtol=1e-6)
        assert sess.run(total) == 58.0


def test_a_tensor_of_the_branch_not_taken_cannot_be_fetched(plan_memory):
    """TF 1.15 ("Retval[1] does not have value"): fetching a tensor made inside the branch not
    taken is an InvalidArgumentError naming it, not what its buffer held; the branch taken's
    tensors fetch, and the session runs on."""
    pred = tf.placeholder(tf.bool, [], name="pred")
    x = tf.placeholder(tf.float32, [3], name="x")
    made = {}

    def branch(key, fn):
        def build():
            made[key] = fn()
            return made[key]
        return build
    y = tf.cond(pred, branch("sqrt", lambda: tf.sqrt(x) * 2.0), branch("sub", lambda: x - 1.0))
    with tf.Session(plan_memory=plan_memory) as sess:
        four = np.full(3, 4.0, np.float32)
        got = sess.run([y, made["sqrt"]], {pred: True, x: four})
        np.testing.assert_array_equal(got, [[4.0] * 3] * 2)
        with pytest.raises(tf.errors.InvalidArgumentError, match="branch not taken") as error:
            sess.run([y, made["sub"]], {pred: True, x: four})
        assert made["sub"].op.name in str(error.value)
        np.testing.assert_array_equal(sess.run(made["sub"], {pred: False, x: four}), [3.0] * 3)
        with pytest.raises(tf.errors.InvalidArgumentError, match="branch not taken"):
            sess.run(made["sqrt"], {pred: False, x: four})
        np.testing.assert_array_equal(sess.run(y, {pred: False, x: four}), [3.0] * 3)


def test_the_branch_not_taken_draws_no_random_numbers():
    """A run that did not take the branch leaves its random op's stream where it was: the
    first draw after it is a fresh session's first (TF draws only in the branch taken)."""
    pred = tf.placeholder(tf.bool, [], name="pred")
    out = tf.cond(pred, lambda: tf.random_uniform([4], seed=7), lambda: tf.zeros([4]))
    with tf.Session() as fresh:
        first, second = fresh.run(out, {pred: True}), fresh.run(out, {pred: True})
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out, {pred: False}), np.zeros(4))
        np.testing.assert_array_equal(sess.run(out, {pred: True}), first)
        np.testing.assert_array_equal(sess.run(out, {pred: False}), np.zeros(4))
        np.testing.assert_array_equal(sess.run(out, {pred: True}), second)


def test_guarded_elementwise_ops_fuse_within_their_branch_only(plan_memory):
    """FuseElemwise keeps a branch's ops apart from the select reading them (it must run
    whichever branch ran); the values against numpy, each branch taken in turn."""
    pred = tf.placeholder(tf.bool, [], name="pred")
    x = tf.placeholder(tf.float32, [5], name="x")
    out = tf.cond(pred, lambda: tf.tanh(x * 2.0 + 1.0) * 3.0, lambda: tf.exp(-x) - x * x)
    value = np.linspace(-1, 1, 5).astype(np.float32)
    for fusion in ("cpu fusion-eager", "cpu"):  # the groups are the same compiled or not
        with tf.Session(fusion, plan_memory=plan_memory) as sess:
            np.testing.assert_allclose(sess.run(out, {pred: True, x: value}),
                                       np.tanh(value * 2 + 1) * 3, rtol=1e-6)
            np.testing.assert_allclose(sess.run(out, {pred: False, x: value}),
                                       np.exp(-value) - value * value, rtol=1e-6)
