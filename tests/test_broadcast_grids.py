"""tf.broadcast_to, tf.meshgrid, tf.linspace / tf.lin_space: values against numpy (and numbers
from real TensorFlow, tf.compat.v1 in /work/tfvenv, where said), gradients against finite
differences, with memory planning on and off."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _run(fetches, plan_memory=True, feeds=None):
    with tf.Session(plan_memory=plan_memory) as sess:
        return sess.run(fetches, feeds)


@pytest.mark.parametrize("shape,target", [((2, 1), (3, 2, 4)), ((3,), (2, 3)), ((), (2, 2)),
                                          ((1, 3), (1, 3))])
def test_broadcast_to_values_and_gradients(shape, target, plan_memory):
    value = np.arange(1, 1 + int(np.prod(shape)), dtype=np.float32).reshape(shape)
    got = _run(tf.broadcast_to(tf.constant(value), list(target)), plan_memory)
    np.testing.assert_array_equal(got, np.broadcast_to(value, target))
    check_gradients(lambda x: tf.broadcast_to(x, list(target)), [shape],
                    plan_memory=plan_memory)


def test_broadcast_to_a_shape_from_a_tensor_and_its_errors():
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.broadcast_to(tf.constant([1.0, 2.0, 3.0]), tf.shape(x))
    got = _run(y, feeds={x: np.zeros((2, 3), np.float32)})
    np.testing.assert_array_equal(got, [[1, 2, 3], [1, 2, 3]])
    # real TF: weights [[1, 2, 3], [4, 5, 6]] give the gradient [5, 7, 9]
    v = tf.constant([1.0, 2.0, 3.0])
    loss = tf.reduce_sum(tf.broadcast_to(v, [2, 3]) * tf.constant([[1., 2., 3.], [4., 5., 6.]]))
    np.testing.assert_array_equal(_run(tf.gradients(loss, v))[0], [5.0, 7.0, 9.0])
    with pytest.raises(tf.ShapeError,
                       match=r"BroadcastTo.* do not broadcast; input shapes \(3,\), \(2, 4\)"):
        tf.broadcast_to(tf.constant([1.0, 2.0, 3.0]), [2, 4])


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_values_as_numpy(indexing, plan_memory):
    x, y, z = np.float32([1, 2, 3]), np.float32([4, 5]), np.float32([7, 8, 9, 10])
    for args in ((x,), (x, y), (x, y, z)):
        got = _run(tf.meshgrid(*[tf.constant(a) for a in args], indexing=indexing), plan_memory)
        for g, want in zip(got, np.meshgrid(*args, indexing=indexing)):
            np.testing.assert_array_equal(g, want)


def test_meshgrid_gradients(plan_memory):
    # real TF: [319, 319, 319], [219, 219], [54, 54, 54, 54] for this loss
    x, y, z = tf.constant([1., 2., 3.]), tf.constant([4., 5.]), tf.constant([7., 8., 9., 10.])
    grid_x, grid_y = tf.meshgrid(x, y)
    a, b, c = tf.meshgrid(x, y, z)
    ij_x, ij_y = tf.meshgrid(x, y, indexing="ij")
    loss = (tf.reduce_sum(grid_x * 2 + grid_y * 3) + tf.reduce_sum(a * b * c)
            + tf.reduce_sum(ij_x * ij_y))
    got = _run(tf.gradients(loss, [x, y, z]), plan_memory)
    for g, want in zip(got, [[319.0] * 3, [219.0] * 2, [54.0] * 4]):
        np.testing.assert_array_equal(g, want)
    check_gradients(lambda p, q: tf.meshgrid(p, q)[0] * tf.meshgrid(p, q)[1], [(3,), (2,)],
                    plan_memory=plan_memory)
    with pytest.raises(ValueError, match="indexing parameter must be either 'xy' or 'ij'"):
        tf.meshgrid(x, y, indexing="xz")


def test_linspace_values_as_tensorflows(plan_memory):
    # real TF's float32 values, the last exactly stop
    got = _run([tf.lin_space(tf.constant(0.1), tf.constant(1.7), 7), tf.linspace(1.0, 3.0, 1),
                tf.linspace(-1.0, 1.0, 4)], plan_memory)
    np.testing.assert_array_equal(got[0], np.float32(
        [0.1, 0.36666667, 0.6333334, 0.9000001, 1.1666667, 1.4333334, 1.7]))
    np.testing.assert_array_equal(got[1], [1.0])
    np.testing.assert_array_equal(got[2], np.float32([-1.0, -0.3333333, 0.33333337, 1.0]))
    check_gradients(lambda a, b: tf.linspace(a, b, 5), [(), ()], plan_memory=plan_memory)


def test_linspace_refuses_what_tf_refuses():
    with pytest.raises(ValueError, match="Requires num > 0: 0"):
        tf.linspace(0.0, 1.0, 0)
    with pytest.raises(TypeError, match="float tensors"):
        tf.linspace(0, 1, 3)


def test_linspace_and_slice_of_sizes_fed(plan_memory):
    """num and slice sizes known only when the graph runs: real TF 2.21's values and static
    shapes (tf.compat.v1), recorded; num <= 0 fails the run as TF 1.15's LinSpace."""
    n = tf.placeholder(tf.int32, [])
    x = tf.reshape(tf.range(12), [3, 4])
    ops = [tf.linspace(-0.3, 1.7, n), tf.slice(tf.range(10), [1], [n]),
           tf.slice(x, [n - 1, 0], [1, n]), tf.slice(x, tf.stack([n - 1, 1]), [-1, 2])]
    assert [op.get_shape().as_list() for op in ops] == [[None], [None], [1, None], [None, 2]]
    want = {1: [[-0.3], [1], [[0]], [[1, 2], [5, 6], [9, 10]]],
            2: [[-0.3, 1.7], [1, 2], [[4, 5]], [[5, 6], [9, 10]]],
            3: [[-0.3, 0.7, 1.7], [1, 2, 3], [[8, 9, 10]], [[9, 10]]]}
    with tf.Session(plan_memory=plan_memory) as sess:
        for k, values in want.items():
            for got, expected in zip(sess.run(ops, {n: k}), values):
                np.testing.assert_array_equal(got, np.asarray(expected, got.dtype))
        np.testing.assert_array_equal(sess.run(ops[0], {n: 7}), np.float32(
            [-0.3, 0.03333333, 0.36666667, 0.7, 1.0333333, 1.3666668, 1.7]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Requires num > 0"):
            sess.run(ops[0], {n: 0})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Slice"):
            sess.run(ops[1], {n: 11})  # past the input's end
        assert sess.run(ops[1], {n: 9}).tolist() == list(range(1, 10))
