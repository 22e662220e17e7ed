"""tf.sets against TensorFlow's: the SparseTensor results (indices, values, dense shape),
static shapes and errors were recorded from TensorFlow (tensorflow-cpu 2.21, tf.compat.v1 with
v2 behaviour off, whose set ops are TF 1.15's) on 2026-11-27 and written here; hostile sparse
operands are errors naming the node, the session usable after."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _triple(value):
    return value.indices.tolist(), value.values.tolist(), value.dense_shape.tolist()


def test_dense_set_operations_as_tensorflow(plan_memory):
    a = tf.constant([[1, 2, 3, 3], [4, 5, 6, 4]])
    b = tf.placeholder(tf.int32, [2, 4])
    results = [tf.sets.set_intersection(a, b), tf.sets.set_union(a, b),
               tf.sets.set_difference(a, b), tf.sets.set_difference(a, b, aminusb=False)]
    # recorded static shapes: (?, 2) (?,) (2,)
    assert results[0].indices.get_shape().as_list() == [None, 2]
    assert results[0].values.get_shape().as_list() == [None]
    assert results[0].dense_shape.get_shape().as_list() == [2]
    with tf.Session(plan_memory=plan_memory) as sess:
        got = [_triple(v) for v in sess.run(results, {b: [[3, 1, 9, 9], [7, 8, 7, 8]]})]
    assert got == [
        ([[0, 0], [0, 1]], [1, 3], [2, 2]),
        ([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3], [1, 4]],
         [1, 2, 3, 9, 4, 5, 6, 7, 8], [2, 5]),
        ([[0, 0], [1, 0], [1, 1], [1, 2]], [2, 4, 5, 6], [2, 3]),
        ([[0, 0], [1, 0], [1, 1]], [9, 7, 8], [2, 2])]


def test_sparse_set_operations_and_sizes_as_tensorflow(plan_memory):
    sp = tf.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 0]], tf.constant([5, 1, 7, 7], tf.int64),
                         [3, 4])
    spb = tf.SparseTensor([[0, 1], [1, 0], [1, 3]], tf.constant([1, 7, 2], tf.int64), [3, 5])
    dense = tf.constant([[1, 5, 0], [2, 2, 7], [9, 9, 9]], tf.int64)
    sp3 = tf.SparseTensor([[0, 1, 0], [1, 0, 1], [1, 0, 2]], [4, 4, 6], [2, 2, 3])
    a3 = tf.constant([[[1, 2], [2, 2]], [[3, 3], [0, 1]]])
    b3 = tf.constant([[[2, 5], [1, 1]], [[3, 4], [0, 0]]])
    results = [tf.sets.intersection(sp, spb), tf.sets.union(sp, spb),
               tf.sets.difference(sp, spb), tf.sets.set_intersection(dense, spb),
               tf.sets.set_difference(dense, spb), tf.sets.set_difference(sp, dense),
               tf.sets.set_union(sp, dense), tf.sets.set_intersection(a3, b3),
               tf.sets.set_difference(a3, b3),
               tf.sets.set_intersection(tf.constant([[1, 2]]), tf.constant([[3, 4]]))]
    sizes = [tf.sets.set_size(sp), tf.sets.size(sp3)]
    assert sizes[0].get_shape().ndims is None  # recorded: TF's SetSize has no static shape
    with tf.Session(plan_memory=plan_memory) as sess:
        got, got_sizes = sess.run([results, sizes])
    assert [_triple(v) for v in got] == [
        ([[0, 0], [1, 0]], [1, 7], [3, 1]),
        ([[0, 0], [0, 1], [1, 0], [1, 1], [2, 0]], [1, 5, 2, 7, 7], [3, 2]),
        ([[0, 0], [2, 0]], [5, 7], [3, 1]),
        ([[0, 0], [1, 0], [1, 1]], [1, 2, 7], [3, 2]),
        ([[0, 0], [0, 1], [2, 0]], [0, 5, 9], [3, 2]),
        ([[2, 0]], [7], [3, 1]),  # sparse minus dense: TF flips the operands and the difference
        ([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0], [2, 1]], [0, 1, 5, 2, 7, 7, 9],
         [3, 3]),
        ([[0, 0, 0], [1, 0, 0], [1, 1, 0]], [2, 3, 0], [2, 2, 1]),
        ([[0, 0, 0], [0, 1, 0], [1, 1, 0]], [1, 2, 1], [2, 2, 1]),
        ([], [], [1, 0])]
    assert got[0].values.dtype == np.int64
    assert got_sizes[0].tolist() == [2, 1, 1] and got_sizes[1].tolist() == [[0, 1], [2, 0]]
    assert got_sizes[0].dtype == np.int32


@pytest.mark.parametrize("call, error, message", [
    (lambda: tf.sets.set_size(tf.constant([[1, 2]])), TypeError, "Expected `SparseTensor`"),
    (lambda: tf.sets.set_intersection(tf.constant([[1.0]]), tf.constant([[2.0]])), TypeError,
     "'a' has invalid dtype `<dtype: 'float32'>` not in supported dtypes"),
    (lambda: tf.sets.set_intersection(tf.constant([[1]]), tf.constant([[1]], tf.int64)),
     TypeError, "Types don't match, <dtype: 'int32'> vs <dtype: 'int64'>."),
    (lambda: tf.sets.set_union(tf.constant([[1, 2], [3, 4]]), tf.constant([[1], [2], [3]])),
     ValueError, (r"Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are \[2\] "
                 r"and \[3\].")),
    (lambda: tf.sets.set_union(tf.constant(1), tf.constant(2)), ValueError,
     "Shape must be at least rank 2 but is rank 0"),
])
def test_set_errors_as_tensorflow(call, error, message):
    with pytest.raises(error, match=message):
        call()
    with pytest.raises(AttributeError, match="tf.sets.foo is not supported"):
        tf.sets.foo  # noqa: B018


def test_fed_shapes_and_hostile_sparse_operands_are_errors_naming_the_node():
    p, q = tf.placeholder(tf.int32, [None, 2]), tf.placeholder(tf.int32, [None, 3])
    union = tf.sets.set_union(p, q)
    parts = (tf.placeholder(tf.int64, [None, None]), tf.placeholder(tf.int64, [None]),
             tf.placeholder(tf.int64, [None]))
    sparse = tf.SparseTensor(*parts)  # its parts fed as tensors: no sparse feed's checks
    counted = tf.sets.set_size(sparse)
    crossed = tf.sets.set_intersection(sparse, sparse)
    with tf.Session() as sess:
        # recorded: TF's InvalidArgumentError when the fed leading dims differ
        with pytest.raises(tf.errors.InvalidArgumentError, match="leading dims of a"):
            sess.run(union, {p: [[1, 2]], q: [[1, 2, 3], [4, 5, 6]]})
        bad = [(([[0, 9]], [1], [2, 3]), "out of bounds"),
               (([[1, 0], [0, 0]], [1, 2], [2, 3]), "out of order"),
               (([[0, 0]], [1], [2, -3]), "negative dimension"),
               (([[0]], [1], [4]), "rank at least 2")]
        for value, message in bad:
            for fetch in (counted, crossed):
                with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                    sess.run(fetch, dict(zip(parts, value)))
        huge = ([[0, 0]], [1], [2 ** 40, 2 ** 21])  # 2**40 set sizes: over the memory check
        with pytest.raises(tf.errors.ResourceExhaustedError):
            sess.run(counted, dict(zip(parts, huge)))
        assert _triple(sess.run(crossed, dict(zip(parts, huge)))) == ([[0, 0]], [1],
                                                                        [2 ** 40, 1])
        assert sess.run(counted, dict(zip(parts, ([[0, 0], [0, 2]], [4, 4], [1, 3])))).tolist() \
            == [1]
