"""tf.switch_case, tf.vectorized_map, tf.recompute_grad and the variables' distribution enums
against TensorFlow's: values and errors recorded from TensorFlow (tensorflow-cpu 2.21,
tf.compat.v1 with v2 behaviour off) on 2026-11-27 and written here; gradients against torch."""
import numpy as np
import pytest
import torch

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _constant_fn(value):
    return lambda: tf.constant(value)


def test_switch_case_values_as_tensorflow(plan_memory):
    index = tf.placeholder(tf.int32, [])
    listed = tf.switch_case(index, [_constant_fn(10.0), _constant_fn(20.0), _constant_fn(30.0)])
    keyed = tf.switch_case(index, {1: _constant_fn(10.0), 0: _constant_fn(20.0)},
                           default=_constant_fn(-1.0))
    pairs = tf.switch_case(index, [(1, lambda: (tf.constant(1), tf.constant([2.0, 3.0]))),
                                   (0, lambda: (tf.constant(4), tf.constant([5.0, 6.0])))])
    assert isinstance(pairs, tuple) and pairs[1].get_shape().as_list() == [2]
    with tf.Session(plan_memory=plan_memory) as sess:
        # recorded: out of range takes the default, else the last branch
        assert [sess.run(listed, {index: k}) for k in [-1, 0, 1, 2, 3]] == [30, 10, 20, 30, 30]
        assert [sess.run(keyed, {index: k}) for k in [-1, 0, 1, 2, 3]] == [-1, 20, 10, -1, -1]
        got = [sess.run(pairs, {index: k}) for k in [0, 1, 5]]
        assert [(int(a), b.tolist()) for a, b in got] == [(4, [5, 6]), (1, [2, 3]), (1, [2, 3])]


def test_switch_case_runs_only_the_branch_taken_and_its_gradient():
    index = tf.placeholder(tf.int64, [])
    x = tf.placeholder(tf.float32, [3])
    ran = []
    side = tf.py_func(lambda a: ran.append(1) or a, [x], tf.float32)
    side.set_shape([3])
    result = tf.switch_case(index, [lambda: x * x, lambda: tf.sin(x), lambda: side + 0])
    grad = tf.gradients(tf.reduce_sum(result), x)[0]
    xs = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with tf.Session() as sess:
        for k, fn in [(0, lambda t: t * t), (1, torch.sin)]:
            expected = torch.autograd.grad(fn(xs).sum(), xs)[0].numpy()
            value = sess.run(grad, {index: k, x: [1, 2, 3]})
            np.testing.assert_allclose(value, expected, rtol=1e-6)
        assert ran == []
        assert sess.run(result, {index: 2, x: [1, 2, 3]}).tolist() == [1, 2, 3] and ran == [1]


@pytest.mark.parametrize("call, error, message", [
    (lambda i: tf.switch_case(1, [lambda: 1]), TypeError,
     "'branch_index' must be a Tensor, got <class 'int'>"),
    (lambda i: tf.switch_case(tf.constant(1.0), [lambda: 1]), TypeError,
     "'branch_index' must be an integer Tensor, got <dtype: 'float32'>"),
    (lambda i: tf.switch_case(i, []), ValueError, "Must provide at least one item in 'branch_fns'"),
    (lambda i: tf.switch_case(i, "ab"), TypeError, "'branch_fns' must be a list, tuple, or dict"),
    (lambda i: tf.switch_case(i, {0: lambda: 1.0, 2: lambda: 2.0}), ValueError,
     r"branch indices \(keys\) must form contiguous range of \[0 to 2\) but found \{0,2\}"),
    (lambda i: tf.switch_case(i, [(0, 1)]), TypeError, "fn for key 0 must be callable."),
    (lambda i: tf.switch_case(i, [("a", lambda: 1.0)]), TypeError,
     "key must be a Python `int`, got <class 'str'>"),
    (lambda i: tf.switch_case(i, [lambda: 1.0, 3]), TypeError,
     "Each entry in 'branch_fns' must be a 2-tuple. Received <function"),
])
def test_switch_case_errors_as_tensorflow(call, error, message):
    with pytest.raises(error, match=message):
        call(tf.placeholder(tf.int32, []))


def test_vectorized_map_as_tensorflow():
    rows = tf.placeholder(tf.float32, [None, 2])
    mixed = tf.vectorized_map(lambda row: (tf.reduce_sum(row), tf.cast(row[0] > 1, tf.int32)),
                              rows)
    paired = tf.vectorized_map(lambda pair: pair[0] * pair[1], (rows, rows))
    keyed = tf.vectorized_map(lambda row: {"a": row * 2}, tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    assert mixed[1].dtype == tf.int32 and set(keyed) == {"a"}
    squares = tf.vectorized_map(lambda row: tf.reduce_sum(row * row), rows)
    grad = tf.gradients(tf.reduce_sum(squares), rows)[0]
    with tf.Session() as sess:
        # recorded: ([3, 7, 11], [0, 1, 1]), [[1, 4], [9, 16]], {'a': [[2, 4], [6, 8]]}
        total, flags = sess.run(mixed, {rows: [[1, 2], [3, 4], [5, 6]]})
        assert total.tolist() == [3, 7, 11] and flags.tolist() == [0, 1, 1]
        assert flags.dtype == np.int32
        assert sess.run(paired, {rows: [[1, 2], [3, 4]]}).tolist() == [[1, 4], [9, 16]]
        assert sess.run(keyed)["a"].tolist() == [[2, 4], [6, 8]]
        # recorded: the gradient 2 * rows (TF's as IndexedSlices of all rows)
        assert sess.run(grad, {rows: [[1, 2], [3, 4]]}).tolist() == [[2, 4], [6, 8]]


def test_recompute_grad_values_gradients_and_recomputation():
    x = tf.placeholder(tf.float32, [4, 8])
    w = tf.Variable(np.linspace(-1, 1, 64, dtype=np.float32).reshape(8, 8))
    block = tf.recompute_grad(lambda a: tf.tanh(tf.matmul(a, w)))
    loss = tf.reduce_sum(tf.sigmoid(block(x)))
    grads = tf.gradients(loss, [x, w])
    xv = np.linspace(-2, 2, 32, dtype=np.float32).reshape(4, 8)
    xt = torch.tensor(xv, requires_grad=True)
    wt = torch.tensor(np.linspace(-1, 1, 64, dtype=np.float32).reshape(8, 8), requires_grad=True)
    expected_loss = torch.sigmoid(torch.tanh(xt @ wt)).sum()
    expected = torch.autograd.grad(expected_loss, [xt, wt])
    sess = tf.Session()  # no memory policy: recompute_grad's hints alone run the Mirror pass
    sess.run(tf.global_variables_initializer())
    np.testing.assert_allclose(sess.run(loss, {x: xv}), expected_loss.item(), rtol=1e-5)
    for got, want in zip(sess.run(grads, {x: xv}), expected):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-6)
    recomputed = {row[0] for row in sess.memory_plan(grads, {x: xv}).recomputed}
    assert {"Tanh.mirror", "MatMul.mirror"} <= recomputed
    with pytest.raises(ValueError, match="keywords arguments only when eager"):
        block(x, training=True)


def test_variable_distribution_enums_as_tensorflow():
    # recorded: the members and values, ONLY_FIRST_TOWER is ONLY_FIRST_REPLICA
    assert [(m.name, m.value) for m in tf.VariableAggregation] == [
        ("NONE", 0), ("SUM", 1), ("MEAN", 2), ("ONLY_FIRST_REPLICA", 3)]
    assert [(m.name, m.value) for m in tf.VariableSynchronization] == [
        ("AUTO", 0), ("NONE", 1), ("ON_WRITE", 2), ("ON_READ", 3)]
    assert tf.VariableAggregation.ONLY_FIRST_TOWER is tf.VariableAggregation.ONLY_FIRST_REPLICA
    on_read = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ,
                          aggregation=tf.VariableAggregation.SUM)
    # recorded: ON_READ makes it not trainable unless trainable is given
    assert not on_read.trainable and on_read not in tf.trainable_variables()
    assert on_read.synchronization is tf.VariableSynchronization.ON_READ
    assert on_read.aggregation is tf.VariableAggregation.SUM
    mean = tf.Variable(1.0, aggregation=tf.VariableAggregation.MEAN)
    assert mean.trainable and mean.synchronization is tf.VariableSynchronization.AUTO
    forced = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ, trainable=True)
    assert forced.trainable and forced.aggregation is tf.VariableAggregation.NONE
    by_value = tf.Variable(1.0, synchronization=2, aggregation=1)
    assert by_value.synchronization is tf.VariableSynchronization.ON_WRITE
    assert by_value.aggregation is tf.VariableAggregation.SUM
    with pytest.raises(ValueError, match="Invalid variable aggregation mode: sum for variable: "
                                         "None"):
        tf.Variable(1.0, aggregation="sum")
    shared = tf.get_variable("g", [2], synchronization=tf.VariableSynchronization.ON_READ,
                             aggregation=tf.VariableAggregation.MEAN)
    assert not shared.trainable and shared.aggregation is tf.VariableAggregation.MEAN
    assert shared.synchronization is tf.VariableSynchronization.ON_READ
    with pytest.raises(ValueError, match="Invalid variable aggregation mode: x for variable: h2"):
        tf.get_variable("h2", [2], aggregation="x")
    assert tf.get_variable("plain", [2]).trainable
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(on_read) == 1.0 and sess.run(shared).shape == (2,)
