"""tf.map_fn, tf.scan, tf.foldl, tf.foldr on tf.while_loop (issue 25): values against numpy,
gradients against PyTorch autograd over the same unrolled computation, planned and unplanned."""
import numpy as np
import pytest
import torch

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")

VALUES = np.arange(1, 13, dtype=np.float32).reshape(4, 3) / 4


def _run(plan_memory, fetches, x, values=VALUES):
    return tf.Session(plan_memory=plan_memory).run(fetches, {x: values})


def test_map_fn_values_structures_and_dtype(plan_memory):
    x = tf.placeholder(tf.float32, [None, 3])  # the length is known only when fed
    doubled = tf.map_fn(lambda row: row * 2.0, x)
    sums = tf.map_fn(lambda row: tf.reduce_sum(row), x, dtype=tf.float32)
    pair = tf.map_fn(lambda p: (p[0] + p[1], p[0] * 3.0), (x, x))
    counts = tf.map_fn(lambda row: tf.cast(tf.reduce_sum(row), tf.int32), x, dtype=tf.int32)
    # one tensor in, a pair out: dtype gives the results' structure
    split = tf.map_fn(lambda row: (row * 2.0, tf.reduce_sum(row)), x,
                      dtype=(tf.float32, tf.float32))
    got = _run(plan_memory, [doubled, sums, pair, counts, split], x)
    np.testing.assert_allclose(got[0], VALUES * 2)
    np.testing.assert_allclose(got[1], VALUES.sum(1), rtol=1e-6)
    assert isinstance(got[2], tuple)
    np.testing.assert_allclose(got[2][0], VALUES * 2)
    np.testing.assert_allclose(got[2][1], VALUES * 3)
    np.testing.assert_array_equal(got[3], VALUES.sum(1).astype(np.int32))
    assert isinstance(got[4], tuple) and len(got[4]) == 2
    np.testing.assert_allclose(got[4][0], VALUES * 2)
    np.testing.assert_allclose(got[4][1], VALUES.sum(1), rtol=1e-6)


def test_scan_forward_reverse_and_with_an_initializer(plan_memory):
    x = tf.placeholder(tf.float32, [4, 3])
    forward = tf.scan(lambda a, row: a + row, x)
    backward = tf.scan(lambda a, row: a + row, x, reverse=True)
    decayed = tf.scan(lambda a, row: a * 0.5 + row, x, initializer=tf.ones([3]))
    got = _run(plan_memory, [forward, backward, decayed], x)
    np.testing.assert_allclose(got[0], np.cumsum(VALUES, 0), rtol=1e-6)
    np.testing.assert_allclose(got[1], np.cumsum(VALUES[::-1], 0)[::-1], rtol=1e-6)
    expected, a = [], np.ones(3, np.float32)
    for row in VALUES:
        a = a * 0.5 + row
        expected.append(a)
    np.testing.assert_allclose(got[2], expected, rtol=1e-6)


def test_folds_left_and_right(plan_memory):
    x = tf.placeholder(tf.float32, [4, 3])
    left = tf.foldl(lambda a, row: a - row, x)
    right = tf.foldr(lambda a, row: a - row, x)
    total = tf.foldl(lambda a, row: a + tf.reduce_sum(row), x, initializer=tf.constant(0.0))
    got = _run(plan_memory, [left, right, total], x)
    np.testing.assert_allclose(got[0], VALUES[0] - VALUES[1:].sum(0), rtol=1e-6)
    np.testing.assert_allclose(got[1], VALUES[3] - VALUES[:3].sum(0), rtol=1e-6)
    assert got[2] == pytest.approx(VALUES.sum())


def test_gradients_of_a_scan_and_a_map_against_torch(plan_memory):
    x = tf.placeholder(tf.float32, [4, 3])
    products = tf.scan(lambda a, row: a * row + tf.sigmoid(row), x)
    mapped = tf.map_fn(lambda row: tf.tanh(row) * row, x)
    loss = tf.reduce_sum(products * products) + tf.reduce_sum(mapped)
    (grad,) = tf.gradients(loss, x)
    got_loss, got_grad = _run(plan_memory, [loss, grad], x)
    reference = torch.tensor(VALUES, requires_grad=True)
    a, rows = reference[0], [reference[0]]
    for row in reference[1:]:
        a = a * row + torch.sigmoid(row)
        rows.append(a)
    stacked = torch.stack(rows)
    expected = (stacked * stacked).sum() + (torch.tanh(reference) * reference).sum()
    expected.backward()
    assert got_loss == pytest.approx(expected.item(), rel=1e-5)
    np.testing.assert_allclose(got_grad, reference.grad.numpy(), rtol=1e-4)


def test_errors():
    with pytest.raises(ValueError, match="different lengths"):
        tf.map_fn(lambda p: p[0], (tf.zeros([3, 2]), tf.zeros([4, 2])))
    with pytest.raises(ValueError, match="at least one axis"):
        tf.scan(lambda a, x: a + x, tf.constant(1.0))
    with pytest.raises(ValueError, match="pass dtype="):
        tf.map_fn(lambda row: (row, row), tf.zeros([3, 2]))
