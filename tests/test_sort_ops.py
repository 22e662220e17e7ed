"""TensorFlow 1.15's tf.sort, tf.argsort, tf.unique, tf.unique_with_counts, tf.setdiff1d and
tf.bincount (tinyflow/frontend/sort_ops.py): orders of ties, static shapes, dtypes, result
tuples, refusals and gradients.  Every number here came from real TensorFlow
(tf.compat.v1, graph mode) unless a comment says otherwise; values against torch and numpy
are test_ops' (tests/op_cases_sorting.py)."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients
from tinyflow.nnvm import GraphError
from tinyflow.nnvm.errors import InvalidArgumentError

pytestmark = pytest.mark.usefixtures("fresh_graph")

X = np.array([[3.0, 1.0, 2.0, 1.0], [0.0, -1.0, 5.0, 5.0]], np.float32)


def _run(fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed)


def test_sort_and_argsort_as_tf():
    x = tf.constant(X)
    got = _run([tf.sort(x), tf.sort(x, direction="DESCENDING"), tf.sort(x, axis=0),
                tf.argsort(x), tf.argsort(x, direction="DESCENDING"),
                tf.argsort(x, axis=0, direction="DESCENDING")])
    assert got[0].tolist() == [[1, 1, 2, 3], [-1, 0, 5, 5]]
    assert got[1].tolist() == [[3, 2, 1, 1], [5, 5, 0, -1]]
    assert got[2].tolist() == [[0, -1, 2, 1], [3, 1, 5, 5]]
    assert got[3].tolist() == [[1, 3, 2, 0], [1, 0, 2, 3]] and got[3].dtype == np.int32
    assert got[4].tolist() == [[0, 2, 1, 3], [2, 3, 0, 1]]
    assert got[5].tolist() == [[0, 0, 1, 1], [1, 1, 0, 0]]
    # ties keep their order both ways, stable or not
    ties = tf.constant([2, 1, 2, 1, 2])
    assert _run(tf.argsort(ties, stable=True)).tolist() == [1, 3, 0, 2, 4]
    assert _run(tf.argsort(ties, direction="DESCENDING")).tolist() == [0, 2, 4, 1, 3]
    # a NaN sorts last ascending (TF 2.21's [1, 3, nan] and [2, 0, 1])
    values, order = _run([tf.sort(tf.constant([3.0, np.nan, 1.0])),
                          tf.argsort(tf.constant([3.0, np.nan, 1.0]))])
    assert values[:2].tolist() == [1.0, 3.0] and np.isnan(values[2])
    assert order.tolist() == [2, 0, 1]
    assert tf.argsort(x).dtype == tf.int32 and tf.sort(x).get_shape().as_list() == [2, 4]


def test_sort_gradient_goes_back_to_each_value_as_tf():
    x = tf.constant(X)
    head = tf.constant([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    grad = tf.gradients(tf.sort(x, direction="DESCENDING"), x, grad_ys=[head])[0]
    assert _run(grad).tolist() == [[1, 3, 2, 4], [7, 8, 5, 6]]


def test_sort_refusals():
    with pytest.raises(ValueError, match="direction"):
        tf.sort(tf.constant(X), direction="UP")
    with pytest.raises(TypeError, match="float or integer"):  # TF: a TypeError for bool too
        tf.sort(tf.constant([True, False]))
    with pytest.raises(ValueError, match="out of range"):
        tf.sort(tf.constant(X), axis=2)


def test_unique_and_counts_as_tf():
    u = tf.unique(tf.constant([4, 2, 4, 7, 2, 2]))
    assert u.y.get_shape().as_list() == [None] and u.idx.dtype == tf.int32
    got = _run(u)
    assert type(got).__name__ == "Unique"
    assert got.y.tolist() == [4, 2, 7] and got.idx.tolist() == [0, 1, 0, 2, 1, 1]
    wide = _run(tf.unique(tf.constant([4, 2, 4], tf.int64), out_idx=tf.int64))
    assert wide.y.tolist() == [4, 2] and wide.idx.dtype == np.int64
    counted = _run(tf.unique_with_counts(tf.constant([4.0, 2.0, 4.0, 7.0, 2.0, 2.0])))
    assert type(counted).__name__ == "UniqueWithCounts"
    assert counted.y.tolist() == [4.0, 2.0, 7.0] and counted.count.tolist() == [2, 3, 1]
    assert counted.idx.tolist() == [0, 1, 0, 2, 1, 1] and counted.count.dtype == np.int32
    with pytest.raises(ValueError, match="rank 1"):  # TF: "Shape must be rank 1"
        tf.unique(tf.constant([[1, 2]]))
    # ops after it are bound once it ran (TinyFlow's staged bind)
    u = tf.unique(tf.constant([4, 2, 4, 7, 2, 2]))
    assert _run(tf.reduce_sum(u.y) + tf.size(u.idx)) == 19


def test_setdiff1d_as_tf():
    d = tf.setdiff1d(tf.constant([1, 2, 3, 4, 3, 6]), tf.constant([1, 3, 5]))
    assert d.out.get_shape().as_list() == [None] and d.out.op.type == "ListDiff"
    got = _run(d)
    assert type(got).__name__ == "ListDiff"
    assert got.out.tolist() == [2, 4, 6] and got.idx.tolist() == [1, 3, 5]
    with pytest.raises(TypeError, match="one dtype"):
        tf.setdiff1d(tf.constant([1, 2]), tf.constant([1.0]))


def test_bincount_as_tf():
    arr = tf.constant([1, 1, 4, 2])
    got = _run([tf.bincount(arr), tf.bincount(arr, minlength=7), tf.bincount(arr, maxlength=3),
                tf.bincount(arr, weights=tf.constant([0.5, 1.0, 2.0, 3.0])),
                tf.bincount(tf.constant(np.zeros(0, np.int32))),
                tf.bincount(tf.constant([[1, 1], [3, 0]]))])
    assert got[0].tolist() == [0, 2, 1, 0, 1] and got[0].dtype == np.int32
    assert got[1].tolist() == [0, 2, 1, 0, 1, 0, 0]
    assert got[2].tolist() == [0, 2, 1]
    assert got[3].tolist() == [0.0, 1.5, 3.0, 0.0, 2.0] and got[3].dtype == np.float32
    assert got[4].tolist() == [] and got[5].tolist() == [1, 2, 0, 1]
    assert tf.bincount(arr, dtype=tf.float32).dtype == tf.float32
    assert tf.bincount(arr, weights=tf.constant([1.0] * 4, tf.float64)).dtype == tf.float64
    # TF 1.15's Bincount leaves values outside the bins out (its op's documentation; TF 2.21
    # refuses a negative one instead); with weights it sums by unsorted_segment_sum, which
    # drops a negative value and refuses one past maxlength
    assert _run(tf.bincount(tf.constant([1, -1, 2]))).tolist() == [0, 1, 1]
    with pytest.raises(InvalidArgumentError, match=r"segment_ids\[2\] = 4 is out of range"):
        _run(tf.bincount(arr, weights=tf.constant([1.0] * 4), maxlength=3))
    with pytest.raises(TypeError, match="int32"):
        tf.bincount(tf.constant([1.0]))


def test_gradients_as_tf():
    # TF: LookupError "No gradient defined for operation ... (op type: Unique)"
    w = tf.constant([0.5, 1.0, 2.0, 3.0, 4.0])
    with pytest.raises(GraphError, match="unique"):
        tf.gradients(tf.unique(w).y, w)
    # TF 1.15's bincount sums weights by unsorted_segment_sum: its gradient, [2, 2, 5, 0, 3]
    # from real TF's unsorted_segment_sum(w, arr, 6) with these grad_ys
    arr = tf.constant([1, 1, 4, -2, 2])
    counted = tf.bincount(arr, weights=w, minlength=6)
    head = [tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])]
    assert _run(tf.gradients(counted, w, grad_ys=head)[0]).tolist() == [2, 2, 5, 0, 3]
    assert tf.gradients(tf.bincount(arr), arr) == [None]
    ids = tf.constant([1, 1, 4, 0, 2])
    check_gradients(lambda x: tf.bincount(ids, weights=x, minlength=6), [(5,)])
    # and of that gradient (a bincount of the same bins)
    check_gradients(lambda x: tf.gradients(
        tf.reduce_sum(tf.bincount(ids, weights=x) ** 2), x)[0], [(5,)])
