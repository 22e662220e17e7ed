"""tf.batch_gather and tf.dynamic_partition: values against numpy (and numbers from real
TensorFlow, tf.compat.v1 in /work/tfvenv, where said), gradients against finite differences,
with memory planning on and off."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients
from tinyflow.lua_ops.runtime import LuaOpError

pytestmark = pytest.mark.usefixtures("fresh_graph")

PARAMS = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
INDICES = np.int32([[2, 0], [1, 1]])


def _run(fetches, plan_memory=True, feeds=None):
    with tf.Session(plan_memory=plan_memory) as sess:
        return sess.run(fetches, feeds)


def test_batch_gather_values_and_gradients(plan_memory):
    got = _run(tf.batch_gather(tf.constant(PARAMS), tf.constant(INDICES)), plan_memory)
    want = np.stack([PARAMS[b][INDICES[b]] for b in range(2)])
    np.testing.assert_array_equal(got, want)
    weights = np.arange(16, dtype=np.float32).reshape(2, 2, 4)
    p = tf.constant(PARAMS)
    loss = tf.reduce_sum(tf.batch_gather(p, tf.constant(INDICES)) * tf.constant(weights))
    grad = _run(tf.gradients(loss, p), plan_memory)[0]
    # real TF: row 0 of batch 1 gets nothing, row 1 of batch 1 both of its picks' weights
    np.testing.assert_array_equal(grad[1, 1], [20.0, 22.0, 24.0, 26.0])
    np.testing.assert_array_equal(grad[0], [[4, 5, 6, 7], [0, 0, 0, 0], [0, 1, 2, 3]])
    check_gradients(lambda x: tf.batch_gather(x, tf.constant(INDICES)), [(2, 3, 4)],
                    plan_memory=plan_memory)


def test_batch_gather_of_vectors_with_int64_indices(plan_memory):
    params = np.float32([[1, 2, 3], [4, 5, 6]])
    indices = np.int64([[2, 2, 0, 1], [0, 1, 1, 2]])
    got = _run(tf.batch_gather(tf.constant(params), tf.constant(indices)), plan_memory)
    np.testing.assert_array_equal(got, np.take_along_axis(params, indices, axis=1))
    with pytest.raises(ValueError, match="must be known when the graph is built"):
        tf.batch_gather(tf.placeholder(tf.float32, [None, 3]), tf.constant(indices))


def _gather_reference(params, indices, axis, b):
    """numpy: each batch entry's np.take along its own slice."""
    if b == 0:
        return np.take(params, indices, axis=axis)
    return np.stack([_gather_reference(params[k], indices[k], axis - 1, b - 1)
                     for k in range(params.shape[0])])


# (axis, batch_dims, result shape, result sum): the shapes and sums from real TF
# (tf.compat.v1.gather in /work/tfvenv) on params arange(120).reshape(2, 3, 4, 5) and BATCH_IDS
# (batch_dims 1: BATCH_IDS[:, 0])
BATCH_IDS = np.int32([[[0, 2], [1, 1], [3, 0]], [[2, 2], [0, 1], [1, 3]]])
TF_BATCHED_GATHERS = [(2, 2, (2, 3, 2, 5), 3520.0), (None, 2, (2, 3, 2, 5), 3520.0),
                      (3, 2, (2, 3, 4, 2), 2824.0), (1, 1, (2, 2, 4, 5), 5560.0),
                      (2, 1, (2, 3, 2, 5), 3570.0), (-1, 1, (2, 3, 4, 2), 2832.0),
                      (3, -1, (2, 3, 4, 2), 2824.0)]


@pytest.mark.parametrize("axis, batch_dims, shape, total", TF_BATCHED_GATHERS)
def test_gather_with_batch_dims_as_tf(plan_memory, axis, batch_dims, shape, total):
    params = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    ids = BATCH_IDS if batch_dims != 1 else BATCH_IDS[:, 0]
    x = tf.placeholder(tf.float32, params.shape)
    out = tf.gather(x, tf.constant(ids), axis=axis, batch_dims=batch_dims)
    assert out.get_shape().as_list() == list(shape)
    weights = np.random.RandomState(0).rand(*shape).astype(np.float32)
    got, grad = _run([out, tf.gradients(tf.reduce_sum(out * weights), x)[0]], plan_memory,
                     {x: params})
    b = batch_dims % ids.ndim if batch_dims < 0 else batch_dims
    want = _gather_reference(params, ids, b if axis is None else axis % 4, b)
    np.testing.assert_array_equal(got, want)
    assert got.sum() == total
    check_gradients(lambda p: tf.gather(p, tf.constant(ids), axis=axis, batch_dims=batch_dims),
                    [(2, 3, 4, 5)], plan_memory=plan_memory)
    assert grad.sum() == pytest.approx(weights.sum(), rel=1e-5)  # each pick gets its weight


def test_gather_with_batch_dims_refuses_bad_axes_and_indices():
    params = tf.constant(np.zeros((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match="at most axis"):
        tf.gather(params, tf.constant(np.zeros((2, 3), np.int32)), axis=0, batch_dims=1)
    with pytest.raises(ValueError, match="batch axes"):
        tf.gather(params, tf.constant(np.zeros((3, 1), np.int32)), axis=1, batch_dims=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not index"):
        _run(tf.gather(params, tf.constant(np.int32([[0], [3]])), axis=1, batch_dims=1))


def test_dynamic_partition_values_as_numpy(plan_memory):
    data = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    partitions = np.int32([[0, 2, 1], [2, 0, 0]])
    got = _run(tf.dynamic_partition(tf.constant(data), tf.constant(partitions), 3), plan_memory)
    for i, out in enumerate(got):
        np.testing.assert_array_equal(out, data[partitions == i])
    empty = _run(tf.dynamic_partition(tf.constant([1.0, 2.0]), tf.constant([0, 0]), 2)[1])
    assert empty.shape == (0,)


def test_dynamic_partition_from_feeds_and_gradients(plan_memory):
    data = tf.placeholder(tf.float32, [None, 2])
    partitions = tf.placeholder(tf.int32, [None])
    outs = tf.dynamic_partition(data, partitions, 2)
    weights = [tf.constant([[1.0, 2.0]]), tf.constant([[3.0, 4.0]])]
    grad = tf.gradients(sum(tf.reduce_sum(o * w) for o, w in zip(outs, weights)), data)[0]
    value = np.float32([[1, 2], [3, 4], [5, 6]])
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run([*outs, grad], {data: value, partitions: [1, 0, 1]})
    np.testing.assert_array_equal(got[0], [[3, 4]])
    np.testing.assert_array_equal(got[1], [[1, 2], [5, 6]])
    # each row gets the weights of the partition it went to (weights broadcast over its rows)
    np.testing.assert_array_equal(got[2], [[3, 4], [1, 2], [3, 4]])
    check_gradients(lambda x: tf.dynamic_partition(x, tf.constant([[0, 1], [1, 1]]), 2)[1],
                    [(2, 2, 3)], plan_memory=plan_memory)


def test_dynamic_partition_refuses_bad_partitions():
    with pytest.raises(LuaOpError, match=r"node 'DynamicPartition/partitions'.*out of range"):
        _run(tf.dynamic_partition(tf.constant([1.0, 2.0]), tf.constant([0, 5]), 2))
    with pytest.raises(TypeError, match="partitions must be int32"):
        tf.dynamic_partition(tf.constant([1.0]), tf.constant([0], dtype=tf.int64), 2)
    with pytest.raises(ValueError, match="num_partitions must be an int >= 1"):
        tf.dynamic_partition(tf.constant([1.0]), tf.constant([0]), 0)


def _stitch_inputs():
    indices = [tf.constant([6]), tf.constant([4, 1]), tf.constant([[5, 2], [0, 3]])]
    data = [tf.constant([[61.0, 62.0]]), tf.constant([[41.0, 42.0], [11.0, 12.0]]),
            tf.constant([[[51.0, 52.0], [21.0, 22.0]], [[1.0, 2.0], [31.0, 32.0]]])]
    return indices, data


def test_dynamic_stitch_values_and_gradients(plan_memory):
    indices, data = _stitch_inputs()
    merged = tf.dynamic_stitch(indices, data)
    # constant indices: their max + 1 rows known before it runs (real TF 1.15: (7, 2)), not
    # for a fed index (real TF: (?,)); no index at all: none (real TF: (0, 2))
    assert merged.get_shape().as_list() == [7, 2]
    fed = tf.placeholder(tf.int32, [None])
    assert tf.dynamic_stitch([fed, tf.constant([1])], [tf.zeros([3]), tf.zeros([1])]) \
        .get_shape().as_list() == [None]
    assert tf.dynamic_stitch([tf.constant([], tf.int32)], [tf.zeros([0, 2])]) \
        .get_shape().as_list() == [0, 2]
    weights = tf.constant(np.arange(14, dtype=np.float32).reshape(7, 2))
    grads = tf.gradients(tf.reduce_sum(merged * weights), data)
    got, *got_grads = _run([merged, *grads], plan_memory)
    want = np.float32([[1, 2], [11, 12], [21, 22], [31, 32], [41, 42], [51, 52], [61, 62]])
    np.testing.assert_array_equal(got, want)
    # each data's gradient: the weights' rows at its indices (numpy)
    w = np.arange(14, dtype=np.float32).reshape(7, 2)
    for index, grad in zip(([6], [4, 1], [[5, 2], [0, 3]]), got_grads):
        np.testing.assert_array_equal(grad, w[np.array(index)])


def test_dynamic_stitch_last_writer_wins_and_undoes_a_partition(plan_memory):
    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    merged = tf.dynamic_stitch([tf.constant([0, 1]), tf.constant([1, 2])], [a, b])
    grads = tf.gradients(tf.reduce_sum(merged * tf.constant([1.0, 10.0, 100.0])), [a, b])
    got = _run([merged, *grads], plan_memory)
    # real TF: [1, 3, 4]; gradients [1, 10] and [10, 100] (the overwritten row gets one too)
    np.testing.assert_array_equal(got[0], [1.0, 3.0, 4.0])
    np.testing.assert_array_equal(got[1], [1.0, 10.0])
    np.testing.assert_array_equal(got[2], [10.0, 100.0])
    x = tf.placeholder(tf.float32, [None, 2])
    p = tf.placeholder(tf.int32, [None])
    parts = tf.dynamic_partition(x, p, 2)
    rows = tf.dynamic_partition(tf.range(3), p, 2)
    back = tf.dynamic_stitch(rows, [part * 2 for part in parts])
    grad = tf.gradients(tf.reduce_sum(back * tf.constant([[1., 2.], [3., 4.], [5., 6.]])), x)[0]
    value = np.float32([[1, 2], [3, 4], [5, 6]])
    with tf.Session(plan_memory=plan_memory) as sess:
        got_back, got_grad = sess.run([back, grad], {x: value, p: [1, 0, 1]})
    np.testing.assert_array_equal(got_back, value * 2)  # real TF: the same
    np.testing.assert_array_equal(got_grad, [[2, 4], [6, 8], [10, 12]])


def test_dynamic_stitch_refuses_bad_inputs():
    with pytest.raises(tf.ShapeError, match=r"data\[1\] of shape \(2, 3\) must be indices\[1\]"):
        tf.dynamic_stitch([tf.constant([0]), tf.constant([1, 2])],
                          [tf.constant([[1.0, 2.0]]), tf.constant(np.zeros((2, 3), np.float32))])
    with pytest.raises(TypeError, match=r"indices\[0\] must be int32"):
        tf.dynamic_stitch([tf.constant([0], dtype=tf.int64)], [tf.constant([1.0])])
    with pytest.raises(ValueError, match="as many indices as data"):
        tf.dynamic_stitch([tf.constant([0])], [])
    with pytest.raises(LuaOpError, match=r"indices\[1\] = -1 is out of range"):
        _run(tf.dynamic_stitch([tf.constant([0, -1])], [tf.constant([1.0, 2.0])]))
