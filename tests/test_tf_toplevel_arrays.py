"""TensorFlow 1.15's top-level array and math names composed of existing ops (tf.eye,
tf.where_v2, tf.repeat, tf.roll, tf.searchsorted, tf.unravel_index, tf.invert_permutation,
tf.ensure_shape, the space / batch rearrangements, tf.div_no_nan, tf.truncatediv, tf.acosh...,
tf.saturate_cast, tf.math.polyval) and the scatter writes into variables: values written down
from real TensorFlow (tf.compat.v1, graph mode, /work/tfvenv) or numpy, gradients against
finite differences."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients
from tinyflow.nnvm.errors import InvalidArgumentError

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _run(fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed)


def test_eye_as_tf():
    got = _run(tf.eye(2, 3, batch_shape=[2], dtype=tf.int32))
    assert got.dtype == np.int32
    # from real TF
    assert got.tolist() == [[[1, 0, 0], [0, 1, 0]], [[1, 0, 0], [0, 1, 0]]]
    np.testing.assert_array_equal(_run(tf.linalg.eye(3)), np.eye(3, dtype=np.float32))
    with pytest.raises(TypeError, match="num_rows"):
        tf.eye(tf.placeholder(tf.int32, []))
    with pytest.raises(tf.errors.ResourceExhaustedError, match="eye"):  # checked, not made
        _run(tf.eye(10**6))


def test_array_functions_as_tf():
    m = tf.constant([[1, 2], [3, 4]])
    got = _run([tf.where_v2(tf.constant([True, False]), tf.constant([[1., 2], [3, 4], [5, 6]]),
                            0.),
                tf.where_v2(tf.constant([[True], [False]]), tf.constant([1, 2, 3]),
                            tf.constant([[10], [20]])),
                tf.repeat(m, 2), tf.repeat(m, [1, 3], axis=0), tf.repeat(m, 3, axis=1),
                tf.roll(tf.range(5), 2, 0), tf.roll(tf.reshape(tf.range(6), [2, 3]), [1, -1],
                                                    [0, 1]),
                tf.roll(tf.range(5), [2, 4], [0, 0])])
    # each from real TF
    assert [g.tolist() for g in got] == [
        [[1.0, 0.0], [3.0, 0.0], [5.0, 0.0]], [[1, 2, 3], [20, 20, 20]], [1, 1, 2, 2, 3, 3, 4, 4],
        [[1, 2], [3, 4], [3, 4], [3, 4]], [[1, 1, 1, 2, 2, 2], [3, 3, 3, 4, 4, 4]],
        [3, 4, 0, 1, 2], [[4, 5, 3], [1, 2, 0]], [4, 0, 1, 2, 3]]
    sequence = tf.constant([[0, 3, 9, 9, 10], [1, 2, 3, 4, 5]])
    values = tf.constant([[2, 4, 9], [0, 2, 6]])
    left, right, flat = _run([tf.searchsorted(sequence, values),
                              tf.searchsorted(sequence, values, side="right"),
                              tf.searchsorted(tf.constant([1., 2.5, 2.5, 4.]),
                                              tf.constant([2.5, 0., 5.]), out_type=tf.int64)])
    assert left.tolist() == [[1, 2, 2], [0, 1, 5]] and right.tolist() == [[1, 2, 4], [0, 2, 5]]
    assert flat.tolist() == [1, 0, 4] and flat.dtype == np.int64
    with pytest.raises(ValueError, match="side must be either"):
        tf.searchsorted(sequence, values, side="middle")


def test_index_functions_as_tf():
    got = _run([tf.unravel_index(tf.constant([2, 5, 7]), tf.constant([3, 3])),
                tf.unravel_index(tf.constant(1621), [6, 7, 8, 9]),
                tf.invert_permutation(tf.constant([3, 4, 0, 2, 1]))])
    # from real TF
    assert [g.tolist() for g in got] == [[[0, 1, 2], [2, 2, 1]], [3, 1, 4, 1], [2, 4, 3, 0, 1]]
    with pytest.raises(InvalidArgumentError, match="index out of bounds"):
        _run(tf.unravel_index(tf.constant([9]), [3, 3]))
    for not_permutation in ([3, 3, 0, 2, 1], [5, 3, 0, 2, 1], [-1, 0]):
        with pytest.raises(InvalidArgumentError, match="is not a valid permutation"):
            _run(tf.invert_permutation(tf.constant(not_permutation)))


def test_tuple_identity_n_shape_n_parallel_stack():
    a, b = tf.constant([1.0, 2.0]), tf.constant(3)
    first, none, second = tf.tuple([a, None, b])
    assert none is None
    ones = tf.identity_n([a, b])
    shapes = tf.shape_n([tf.zeros([2, 3]), tf.zeros([4])])
    got = _run([first, second, *ones, *shapes, tf.parallel_stack([a, a * 2])])
    assert [g.tolist() for g in got] == [[1, 2], 3, [1, 2], 3, [2, 3], [4], [[1, 2], [2, 4]]]
    with pytest.raises(ValueError, match="parallel_stack"):
        tf.parallel_stack([tf.placeholder(tf.float32, [None])])


def test_ensure_shape_as_tf():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    checked = tf.ensure_shape(x, [2, None])
    assert checked.get_shape().as_list() == [2, 3]  # real TF: (2, 3)
    assert _run(checked, {x: np.ones((2, 3))}).shape == (2, 3)
    # TF's message: "Shape of tensor x [3,3] is not compatible with expected shape [2,?]."
    with pytest.raises(InvalidArgumentError, match=r"Shape of tensor x:0 \[3,3\] is not "
                                                   r"compatible with expected shape \[2,\?\]\."):
        _run(checked, {x: np.ones((3, 3))})
    with pytest.raises(ValueError, match="not compatible"):
        tf.ensure_shape(x, [2, 4])


def test_space_and_batch_as_tf():
    x = tf.constant(np.arange(1, 17, dtype=np.float32).reshape(1, 4, 4, 1))
    padded = tf.constant(np.arange(1, 13, dtype=np.float32).reshape(1, 2, 3, 2))
    batched = tf.constant(np.arange(1, 17, dtype=np.float32).reshape(4, 1, 2, 2))
    got = _run([tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]]),
                tf.space_to_batch(padded, [[0, 0], [1, 0]], 2),
                tf.batch_to_space_nd(batched, [2, 2], [[0, 0], [1, 1]]),
                tf.space_to_batch_nd(tf.constant(np.arange(24, dtype=np.float32).reshape(
                    2, 6, 2)), [3], [[1, 2]])])
    # each from real TF
    assert got[0].ravel().tolist() == [1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16]
    assert got[0].shape == (4, 2, 2, 1)
    assert got[1].tolist() == [[[[0, 0], [3, 4]]], [[[1, 2], [5, 6]]], [[[0, 0], [9, 10]]],
                               [[[7, 8], [11, 12]]]]
    assert got[2].tolist() == [[[[5, 6], [3, 4]], [[13, 14], [11, 12]]]]
    assert got[3].tolist() == [[[0, 0], [4, 5], [10, 11]], [[0, 0], [16, 17], [22, 23]],
                               [[0, 1], [6, 7], [0, 0]], [[12, 13], [18, 19], [0, 0]],
                               [[2, 3], [8, 9], [0, 0]], [[14, 15], [20, 21], [0, 0]]]
    round_trip = tf.batch_to_space(tf.space_to_batch(padded, [[0, 0], [1, 0]], 2),
                                   [[0, 0], [1, 0]], 2)
    np.testing.assert_array_equal(_run(round_trip), _run(padded))
    with pytest.raises(ValueError, match="not divisible by block_shape"):
        tf.space_to_batch_nd(x, [3, 3], [[0, 0], [0, 0]])


def test_composed_gradients_against_finite_differences():
    check_gradients(lambda x: tf.space_to_batch_nd(x, [2, 2], [[1, 1], [0, 2]]),
                    [(2, 4, 2, 3)])
    check_gradients(lambda x: tf.batch_to_space_nd(x, [2, 2], [[0, 1], [1, 0]]),
                    [(8, 2, 3, 2)])
    check_gradients(lambda x: tf.roll(x, [1, -2], [0, 1]), [(3, 4)])
    check_gradients(lambda x: tf.repeat(x, [2, 1, 3], axis=1), [(2, 3)])
    check_gradients(lambda c, x, y: tf.where_v2(c > 0, x, y), [(3, 1), (1, 4), (3, 4)],
                    wrt=[1, 2])
    check_gradients(lambda x, y: tf.div_no_nan(x, y), [(3, 4), (3, 4)], positive=True)
    check_gradients(lambda x: tf.math.multiply_no_nan(x, x + 1), [(3, 4)], positive=True)
    check_gradients(lambda x: tf.acosh(x + 1.5), [(3, 4)], positive=True)
    check_gradients(lambda x: tf.asinh(x), [(3, 4)])
    check_gradients(lambda x: tf.atanh(x * 0.4), [(3, 4)])
    check_gradients(lambda x: tf.math.polyval([x, 2.0, x * x], x), [(3, 4)])


def test_math_as_tf():
    got = _run([tf.div_no_nan(tf.constant([1., 2, 3]), tf.constant([0., 2, 0])),
                tf.math.divide_no_nan(tf.constant([1.]), tf.constant([0.])),
                tf.truncatediv(tf.constant([-7, 7, -7, 7]), tf.constant([5, -5, -5, 5])),
                tf.truncatemod(tf.constant([-7, 7, -7, 7]), tf.constant([5, -5, -5, 5])),
                tf.truncatemod(tf.constant([-7.5, 7.5]), tf.constant([2., -2.])),
                tf.realdiv(tf.constant([-7., 7.]), tf.constant([2., -4.])),
                tf.saturate_cast(tf.constant([-300., 12.7, 300.]), tf.uint8),
                tf.saturate_cast(tf.constant([-70000, 5, 70000]), tf.int16),
                tf.math.polyval([1., 2., 3.], tf.constant([2., -1.])),
                tf.math.multiply_no_nan(tf.constant([np.inf, 2., np.nan]),
                                        tf.constant([0., 3., 0.])),
                tf.math.reciprocal_no_nan(tf.constant([0., 4.]))])
    # each from real TF
    assert [g.tolist() for g in got] == [
        [0, 1, 0], [0], [-1, -1, 1, 1], [-2, 2, -2, 2], [-1.5, 1.5], [-3.5, -1.75], [0, 12, 255],
        [-32768, 5, 32767], [11, 2], [0, 6, 0], [0, 0.25]]
    hyperbolic = _run([tf.acosh(tf.constant([1.5, 2., 10.])), tf.asinh(tf.constant([-3., 0.5, 10.])),
                       tf.math.atanh(tf.constant([-0.5, 0.3, 0.9]))])
    np.testing.assert_allclose(hyperbolic, [  # from real TF
        [0.9624236822128296, 1.316957950592041, 2.993222951889038],
        [-1.8184465169906616, 0.4812118411064148, 2.998222827911377],
        [-0.5493061542510986, 0.30951961874961853, 1.4722193479537964]], rtol=2e-6)
    monotonic = _run([tf.math.is_non_decreasing(tf.constant([1, 1, 2])),
                      tf.math.is_strictly_increasing(tf.constant([1, 1, 2])),
                      tf.math.is_strictly_increasing(tf.constant([[1, 2], [3, 4]])),
                      tf.math.is_non_decreasing(tf.constant([5]))])
    assert [bool(v) for v in monotonic] == [True, False, True, True]  # from real TF
    with pytest.raises(TypeError, match="div_no_nan"):
        tf.div_no_nan(tf.constant([1]), tf.constant([0]))
    with pytest.raises(TypeError, match="truncatediv"):
        tf.truncatediv(tf.constant([1.0]), tf.constant([2.0]))
    with pytest.raises(ValueError, match="coeffs must be list"):
        tf.math.polyval(tf.constant([1.0]), tf.constant(1.0))


def test_scatter_writes_into_variables_as_tf():
    def variable():
        return tf.Variable(np.arange(1, 7, dtype=np.float32).reshape(3, 2))
    v = [variable() for _ in range(7)]
    batched = tf.Variable(np.arange(12, dtype=np.float32).reshape(2, 3, 2))
    updates = [tf.scatter_mul(v[0], [0, 0, 2], [[2., 2], [3, 3], [10, 10]]),
               tf.scatter_div(v[1], [0, 0, 2], [[2., 2], [2, 4], [10, 10]]),
               tf.scatter_max(v[2], [0, 0, 2], [[2., 0], [0, 9], [1, 10]]),
               tf.scatter_min(v[3], [0, 0, 2], [[2., 0], [0, 9], [1, 10]]),
               tf.scatter_nd_update(v[4], [[0, 1], [2, 0]], [10., 20]),
               tf.scatter_nd_add(v[5], [[0, 1], [0, 1]], [10., 20]),
               tf.scatter_nd_sub(v[6], [[1]], [[10., 20]]),
               tf.batch_scatter_update(batched, [[2, 0], [1, 0]],
                                       [[[9., 9], [8, 8]], [[7, 7], [6, 6]]])]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(updates)
        held = sess.run(v[0])
    # each from real TF
    np.testing.assert_allclose(got[1], [[0.25, 0.25], [3, 4], [0.5, 0.6]], rtol=1e-6)
    assert [g.tolist() for i, g in enumerate(got) if i != 1] == [
        [[6, 12], [3, 4], [50, 60]], [[2, 9], [3, 4], [5, 10]], [[0, 0], [3, 4], [1, 6]],
        [[1, 10], [3, 4], [20, 6]], [[1, 32], [3, 4], [5, 6]], [[1, 2], [-7, -16], [5, 6]],
        [[[8, 8], [2, 3], [9, 9]], [[6, 6], [7, 7], [10, 11]]]]
    assert held.tolist() == [[6, 12], [3, 4], [50, 60]]
    with pytest.raises(TypeError, match="scatter_mul writes to a tf.Variable"):
        tf.scatter_mul(tf.constant([1.0]), [0], [2.0])
    # a row outside [0, N) fails the run, as TF's kernel does (the variable as it was)
    w = tf.Variable([1.0, 2.0, 3.0])
    for bad in (tf.scatter_mul(w, [0, -1], [2.0, 5.0]), tf.scatter_max(w, [0, 3], [9.0, 5.0])):
        with tf.Session() as sess:
            sess.run(w.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"in \[0, 3\): got"):
                sess.run(bad)
            assert sess.run(w).tolist() == [1.0, 2.0, 3.0]
