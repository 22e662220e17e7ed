"""TF 1.15's tf.sparse names composed in tinyflow/frontend/sparse_manip_ops.py: values against
numbers recorded from real TensorFlow (TF 2.21's tf.compat.v1, said so beside each) and against
numpy on the dense tensors, gradients of the values against finite differences with memory
planning on and off, and TF's errors."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients
from tinyflow.nnvm.errors import InvalidArgumentError

A = ([[0, 1], [1, 0], [1, 2]], [1., -2., 3.], [2, 3])
B = ([[0, 0], [1, 2]], [4., -5.], [2, 4])
# an entry out of row-major order, and a zero value
C = ([[0, 1], [1, 0], [1, 2], [1, 1]], [1., -2., 0., 5.], [2, 3])


def _sp(parts, values=None):
    indices, default, shape = parts
    return tf.SparseTensor(indices, default if values is None else values, shape)


def _run(x, feed=None):
    return tf.Session().run(x, feed)


def _check(value, indices, values, shape):
    np.testing.assert_array_equal(value.indices, indices)
    np.testing.assert_allclose(value.values, values)
    np.testing.assert_array_equal(value.dense_shape, shape)


def _dense(value):
    out = np.zeros(value.dense_shape, value.values.dtype)
    for index, v in zip(value.indices, value.values):
        out[tuple(index)] += v
    return out


@pytest.fixture(params=[True, False], ids=["planned", "unplanned"])
def plan_memory(request):
    return request.param


def test_concat_as_tf():
    # recorded from TensorFlow: tf.sparse.concat(1, [a, b]) and (0, ..., expand_nonconcat_dim)
    _check(_run(tf.sparse.concat(1, [_sp(A), _sp(B)])), [[0, 1], [0, 3], [1, 0], [1, 2],
                                                         [1, 5]], [1., 4., -2., 3., -5.], [2, 7])
    _check(_run(tf.sparse.concat(0, [_sp(A), _sp(B)], expand_nonconcat_dim=True)),
           [[0, 1], [1, 0], [1, 2], [2, 0], [3, 2]], [1., -2., 3., 4., -5.], [4, 4])
    with pytest.raises(InvalidArgumentError, match="dims other than axis"):  # TF's at run time
        _run(tf.sparse.concat(0, [_sp(A), _sp(B)]))
    assert tf.sparse.concat is tf.sparse_concat


def test_concat_random_against_numpy():
    rng = np.random.default_rng(0)
    denses = [rng.integers(-2, 3, (3, n, 2)).astype(np.float32) for n in (2, 4, 1)]
    got = _run(tf.sparse.concat(-2, [tf.sparse.from_dense(d) for d in denses]))
    np.testing.assert_array_equal(_dense(got), np.concatenate(denses, axis=1))
    flat = np.ravel_multi_index(got.indices.T, got.dense_shape)
    assert (np.diff(flat) > 0).all()  # row-major order


def test_reductions_as_tf():
    c = _sp(C)
    # recorded from TensorFlow: reduce_sum_sparse(c, 1), (c, 0, keepdims=True), reduce_max(c,
    # 1), reduce_max of one entry -3 in row 0 (row 1 empty: 0), reduce_max(c),
    # reduce_max_sparse(c, 0)
    _check(_run(tf.sparse.reduce_sum_sparse(c, 1)), [[0], [1]], [1., 3.], [2])
    _check(_run(tf.sparse.reduce_sum_sparse(c, 0, keepdims=True)), [[0, 0], [0, 1], [0, 2]],
           [-2., 6., 0.], [1, 3])
    np.testing.assert_array_equal(_run(tf.sparse.reduce_max(c, 1)), [1., 5.])
    lone = ([[0, 1]], [-3.], [2, 3])
    np.testing.assert_array_equal(_run(tf.sparse.reduce_max(_sp(lone), 1)), [-3., 0.])
    assert _run(tf.sparse.reduce_max(c)) == 5.0
    _check(_run(tf.sparse.reduce_max_sparse(c, 0)), [[0], [1], [2]], [-2., 5., 0.], [3])
    _check(_run(tf.sparse.reduce_sum_sparse(c)), np.zeros((1, 0)), [4.], [])
    assert tf.sparse.reduce_max is tf.sparse_reduce_max


def test_reductions_random_against_numpy():
    rng = np.random.default_rng(1)
    dense = rng.standard_normal((3, 4, 5)).astype(np.float32)
    dense[rng.random(dense.shape) < 0.5] = 0
    present = dense != 0
    sp = tf.sparse.from_dense(dense)
    for axis in (0, (1, 2), -1):
        sums = _run(tf.sparse.reduce_sum_sparse(sp, axis, keepdims=True))
        np.testing.assert_allclose(_dense(sums), dense.sum(axis, keepdims=True), atol=1e-6)
        maxima = _run(tf.sparse.reduce_max(sp, axis))
        want = np.where(present.any(axis), np.where(present, dense, -np.inf).max(axis), 0)
        np.testing.assert_allclose(maxima, want)


def test_maximum_minimum_as_tf():
    a2 = ([[0, 1], [1, 1]], [1., -2.], [2, 3])
    # recorded from TensorFlow: tf.sparse.maximum(a, a2) and tf.sparse.minimum(a, a2)
    union = [[0, 1], [1, 0], [1, 1], [1, 2]]
    _check(_run(tf.sparse.maximum(_sp(A), _sp(a2))), union, [1., 0., 0., 3.], [2, 3])
    _check(_run(tf.sparse.minimum(_sp(A), _sp(a2))), union, [1., -2., -2., 0.], [2, 3])
    with pytest.raises(ValueError, match="shapes do not match"):
        tf.sparse.maximum(_sp(A), _sp(B))


def test_split_slice_as_tf():
    c = _sp(C)
    # recorded from TensorFlow: tf.sparse.split(sp_input=c, num_split=2, axis=1)
    first, second = _run(tf.sparse.split(sp_input=c, num_split=2, axis=1))
    _check(first, [[0, 1], [1, 0], [1, 1]], [1., -2., 5.], [2, 2])
    _check(second, [[1, 0]], [0.], [2, 1])
    # recorded from TensorFlow: tf.sparse.slice(c, [1, 1], [5, 5]) keeps the input's order
    _check(_run(tf.sparse.slice(c, [1, 1], [5, 5])), [[0, 1], [0, 0]], [0., 5.], [1, 2])
    with pytest.raises(ValueError, match="Keyword arguments are required"):
        tf.sparse.split(c, 2, 1)


def test_split_random_against_numpy():
    rng = np.random.default_rng(2)
    dense = rng.integers(-1, 2, (4, 7)).astype(np.float32)
    pieces = _run(tf.sparse.split(sp_input=tf.sparse.from_dense(dense), num_split=3, axis=1))
    for got, want in zip(pieces, np.array_split(dense, 3, axis=1)):
        np.testing.assert_array_equal(_dense(got), want)


def test_expand_dims_eye_reset_shape_as_tf():
    a = _sp(A)
    # recorded from TensorFlow: expand_dims(a, 1), expand_dims(a, -1), eye(2, 3),
    # reset_shape(a) and reset_shape(a, [5, 5])
    _check(_run(tf.sparse.expand_dims(a, 1)), [[0, 0, 1], [1, 0, 0], [1, 0, 2]], A[1],
           [2, 1, 3])
    _check(_run(tf.sparse.expand_dims(a, -1)), [[0, 1, 0], [1, 0, 0], [1, 2, 0]], A[1],
           [2, 3, 1])
    _check(_run(tf.sparse.eye(2, 3)), [[0, 0], [1, 1]], [1., 1.], [2, 3])
    assert tf.sparse.eye(2).dtype == tf.float32
    rows = tf.placeholder(tf.int32, [])
    _check(_run(tf.sparse.eye(rows, dtype=tf.int32), {rows: 3}), [[0, 0], [1, 1], [2, 2]],
           [1, 1, 1], [3, 3])
    _check(_run(tf.sparse.reset_shape(a)), A[0], A[1], [2, 3])
    _check(_run(tf.sparse.reset_shape(a, [5, 5])), A[0], A[1], [5, 5])
    _check(_run(tf.sparse.reset_shape(_sp(([[0, 4, 1]], [2.], [3, 9, 9])))), [[0, 4, 1]], [2.],
           [1, 5, 2])
    empty = tf.SparseTensor(np.zeros((0, 2), np.int64), np.zeros(0, np.float32), [2, 3])
    _check(_run(tf.sparse.reset_shape(empty)), np.zeros((0, 2)), [], [0, 0])
    with pytest.raises(ValueError, match="Requested new_shape should have dimension sizes"):
        tf.sparse.reset_shape(a, [1, 5])
    with pytest.raises(ValueError, match="Dimensions 3 and 2 are not compatible"):
        tf.sparse.reset_shape(a, [5, 5, 5])
    shape = tf.placeholder(tf.int64, [2])
    with pytest.raises(InvalidArgumentError, match="must be at least the shape"):
        _run(tf.sparse.reset_shape(a, shape), {shape: [1, 5]})


def test_to_indicator_and_mask_as_tf():
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [3, 1, 2], [2, 2])
    # recorded from TensorFlow: tf.sparse.to_indicator(ids, 4)
    np.testing.assert_array_equal(_run(tf.sparse.to_indicator(ids, 4)),
                                  [[False, True, False, True], [False, False, True, False]])
    with pytest.raises(InvalidArgumentError):  # an id outside the vocabulary
        _run(tf.sparse.to_indicator(ids, 3))
    slices = tf.IndexedSlices(tf.constant([[1., 2.], [3., 4.], [5., 6.]]),
                              tf.constant([0, 4, 7]), tf.constant([10, 2]))
    masked = tf.sparse.mask(slices, tf.constant([4]))
    # recorded from TensorFlow: values [[1, 2], [5, 6]], indices [0, 7]
    assert isinstance(masked, tf.IndexedSlices)
    np.testing.assert_array_equal(_run(masked.values), [[1., 2.], [5., 6.]])
    np.testing.assert_array_equal(_run(masked.indices), [0, 7])


def test_value_gradients(plan_memory):
    rng = np.random.default_rng(3)

    def concat(u, v):
        return tf.sparse.concat(1, [_sp(A, u), _sp(B, v)]).values

    def reduced(u):
        return tf.concat([tf.sparse.reduce_sum_sparse(_sp(C, u), 1).values,
                          tf.sparse.reduce_max(_sp(C, u), 0)], 0)

    def extremes(u, v):
        a2 = ([[0, 1], [1, 1]], v, [2, 3])
        return tf.sparse.maximum(_sp(A, u), _sp(a2)).values * tf.sparse.minimum(
            _sp(A, u), _sp(a2)).values

    def pieces(u):
        first, second = tf.sparse.split(sp_input=_sp(C, u), num_split=2, axis=1)
        return tf.concat([first.values, 2 * second.values,
                          tf.sparse.slice(_sp(C, u), [1, 1], [1, 2]).values], 0)
    check_gradients(concat, inputs=[rng.standard_normal(3), rng.standard_normal(2)],
                    plan_memory=plan_memory)
    check_gradients(reduced, inputs=[np.array([1., -2., 0.5, 5.])], plan_memory=plan_memory)
    check_gradients(extremes, inputs=[np.array([1.5, -2., 3.]), np.array([1., -1.])],
                    plan_memory=plan_memory)
    check_gradients(pieces, inputs=[rng.standard_normal(4)], plan_memory=plan_memory)
