"""TensorFlow 1.15's segment reductions (tinyflow/frontend/segment_ops.py): the values of empty
segments, dropped and refused ids, the errors' words, static shapes and the gradients' way of
splitting ties — every number and message here came from real TensorFlow (tf.compat.v1,
graph mode).  Values and gradients against torch are test_ops' (tests/op_cases_segment.py)."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.nnvm.errors import InvalidArgumentError

pytestmark = pytest.mark.usefixtures("fresh_graph")

DATA = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, -6.0]], np.float32)


def _run(fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed)


def test_unsorted_values_and_empty_segments_as_tf():
    # from real TF: ids [0, 2, 0], num_segments 4
    d, ids = tf.constant(DATA), tf.constant([0, 2, 0])
    lowest, highest = -3.4028234663852886e+38, 3.4028234663852886e+38
    expected = {
        "sum": [[6.0, -4.0], [0.0, 0.0], [3.0, 4.0], [0.0, 0.0]],
        "max": [[5.0, 2.0], [lowest] * 2, [3.0, 4.0], [lowest] * 2],
        "min": [[1.0, -6.0], [highest] * 2, [3.0, 4.0], [highest] * 2],
        "prod": [[5.0, -12.0], [1.0, 1.0], [3.0, 4.0], [1.0, 1.0]],
        "mean": [[3.0, -2.0], [0.0, 0.0], [3.0, 4.0], [0.0, 0.0]],
        "sqrt_n": [[4.242640972137451, -2.8284270763397217], [0.0, 0.0], [3.0, 4.0],
                   [0.0, 0.0]]}
    for kind, want in expected.items():
        result = _run(getattr(tf.math, f"unsorted_segment_{kind}")(d, ids, 4))
        np.testing.assert_allclose(result, want, rtol=1e-6, err_msg=kind)
        assert getattr(tf, f"unsorted_segment_{kind}") is getattr(tf.math,
                                                                   f"unsorted_segment_{kind}")


def test_sorted_values_and_empty_segments_as_tf():
    # from real TF: ids [0, 0, 3]: 4 rows, rows 1 and 2 empty (0; 1 for prod)
    d, ids = tf.constant(DATA), tf.constant([0, 0, 3])
    expected = {"sum": [[4.0, 6.0], [0.0, 0.0], [0.0, 0.0], [5.0, -6.0]],
                "max": [[3.0, 4.0], [0.0, 0.0], [0.0, 0.0], [5.0, -6.0]],
                "min": [[1.0, 2.0], [0.0, 0.0], [0.0, 0.0], [5.0, -6.0]],
                "prod": [[3.0, 8.0], [1.0, 1.0], [1.0, 1.0], [5.0, -6.0]],
                "mean": [[2.0, 3.0], [0.0, 0.0], [0.0, 0.0], [5.0, -6.0]]}
    for kind, want in expected.items():
        out = getattr(tf, f"segment_{kind}")(d, ids)
        assert out.get_shape().as_list() == [None, 2]  # TF's static shape too
        np.testing.assert_array_equal(_run(out), want, err_msg=kind)


def test_integer_and_double_empty_segments_as_tf():
    # from real TF: the dtype's lowest / highest, not -inf
    assert _run(tf.unsorted_segment_max(tf.constant([1, 2]), [0, 0], 2)).tolist() == [
        2, -2147483648]
    assert _run(tf.unsorted_segment_min(tf.constant([1, 2]), [0, 0], 2)).tolist() == [
        1, 2147483647]
    assert _run(tf.unsorted_segment_max(tf.constant([1, 2], tf.int64), [0, 0], 2)).tolist() == [
        2, -9223372036854775808]
    assert _run(tf.unsorted_segment_max(tf.constant([1.0, 2.0], tf.float64), [1, 1], 2)
                ).tolist() == [-1.7976931348623157e+308, 2.0]
    # integer means: TF gave [1, 4, 0] (3 // 2) and [1, 4] for the sorted op
    assert _run(tf.unsorted_segment_mean(tf.constant([1, 2, 4]), [0, 0, 1], 3)).tolist() == [
        1, 4, 0]
    assert _run(tf.segment_mean(tf.constant([1, 2, 4]), [0, 0, 1])).tolist() == [1, 4]
    # a NaN wins a max (real TF: [nan, lowest])
    result = _run(tf.unsorted_segment_max(tf.constant([1.0, np.nan]), [0, 0], 2))
    assert np.isnan(result[0]) and result[1] == np.finfo(np.float32).min


def test_negative_ids_are_dropped_and_ids_may_have_rank_two():
    # from real TF: a negative id drops its slice; ids of data's leading shape
    assert _run(tf.unsorted_segment_sum(tf.constant(DATA), [0, -1, 1], 2)).tolist() == [
        [1.0, 2.0], [5.0, -6.0]]
    result = _run(tf.unsorted_segment_sum(tf.reshape(tf.range(8.0), [2, 2, 2]),
                                          [[0, 1], [1, 1]], 2))
    assert result.tolist() == [[0.0, 1.0], [12.0, 15.0]]


def test_ids_out_of_range_are_tf_errors_and_the_session_goes_on():
    x = tf.placeholder(tf.float32, [3, 2], name="x")
    feed = {x: DATA}
    with tf.Session() as sess:
        # real TF's words: "segment_ids[1] = 5 is out of range [0, 2)"
        with pytest.raises(InvalidArgumentError, match=r"segment_ids\[1\] = 5 is out of range "
                                                        r"\[0, 2\)"):
            sess.run(tf.unsorted_segment_max(x, [0, 5, 1], 2), feed)
        with pytest.raises(InvalidArgumentError, match=r"segment_ids\[1,0\] = 3 is out of "
                                                        r"range \[0, 2\)"):
            sess.run(tf.unsorted_segment_sum(tf.ones([2, 2]), [[0, 1], [3, 0]], 2))
        with pytest.raises(InvalidArgumentError, match="segment ids are not increasing"):
            sess.run(tf.segment_sum(x, [1, 0, 1]), feed)
        with pytest.raises(InvalidArgumentError, match=r"Segment id -1 out of range \[0, 1\), "
                                                        r"possibly because 'segment_ids' input "
                                                        r"is not sorted\."):
            sess.run(tf.segment_max(x, [-1, 0, 0]), feed)
        assert sess.run(tf.segment_sum(x, [0, 0, 1]), feed).tolist() == [[4.0, 6.0],
                                                                         [5.0, -6.0]]


def test_shapes_num_segments_and_refusals():
    x = tf.placeholder(tf.float32, [None, 2])
    ids = tf.placeholder(tf.int32, [None])
    assert tf.unsorted_segment_sum(x, ids, 4).get_shape().as_list() == [4, 2]
    # num_segments from a shape, folded when the session binds the graph
    counted = tf.unsorted_segment_sum(x, ids, tf.shape(x)[0])
    feed = {x: np.ones((3, 2)), ids: [0, 2, 0]}
    assert _run(counted, feed).tolist() == [[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]]
    assert tf.unsorted_segment_sum(x, ids, tf.constant(3, tf.int64)).get_shape()[0] == 3
    with pytest.raises(ValueError, match="non-negative"):  # TF: a ValueError too
        tf.unsorted_segment_sum(x, ids, -1)
    with pytest.raises(ValueError, match="does not start with segment_ids.shape"):
        tf.unsorted_segment_sum(tf.ones([3, 2]), [0, 1, 0, 1], 2)
    with pytest.raises(ValueError, match="rank 1"):
        tf.segment_sum(tf.ones([3, 2]), [[0, 0, 0]])
    with pytest.raises(TypeError, match="int32 or int64"):
        tf.unsorted_segment_sum(tf.ones([3]), tf.constant([0.0, 1.0, 0.0]), 2)
    with pytest.raises(TypeError, match="float"):
        tf.unsorted_segment_sqrt_n(tf.constant([1, 2]), [0, 0], 1)
    # no data: no rows (TF: shape (0, 2))
    assert _run(tf.segment_sum(tf.zeros([0, 2]), tf.zeros([0], tf.int32))).shape == (0, 2)


def test_gradients_split_ties_and_skip_zeros_as_tf():
    x = tf.constant([1.0, 3.0, 3.0, 2.0])
    y = tf.unsorted_segment_max(x, [0, 0, 0, 1], 2)
    grads = [tf.gradients(y, x, grad_ys=[tf.constant([6.0, 1.0])])[0]]
    y = tf.segment_min(x, [0, 1, 1, 1])
    grads.append(tf.gradients(y, x, grad_ys=[tf.constant([6.0, 1.0])])[0])
    z = tf.constant([0.0, 2.0, 0.0, 3.0, 0.0, 4.0])
    y = tf.unsorted_segment_prod(z, [0, 0, 1, 1, 1, 2], 3)
    grads.append(tf.gradients(y, z, grad_ys=[tf.constant([1.0, 2.0, 3.0])])[0])
    grads.append(tf.gradients(tf.segment_prod(z, [0, 0, 1, 1, 1, 2]), z)[0])
    y = tf.unsorted_segment_sqrt_n(x, [0, 0, 0, 1], 2)
    grads.append(tf.gradients(y, x, grad_ys=[tf.constant([6.0, 1.0])])[0])
    got = _run(grads)
    # from real TF
    np.testing.assert_allclose(got[0], [0.0, 3.0, 3.0, 1.0])
    np.testing.assert_allclose(got[1], [6.0, 0.0, 0.0, 1.0])
    np.testing.assert_allclose(got[2], [2.0, 0.0, 0.0, 0.0, 0.0, 3.0])
    np.testing.assert_allclose(got[3], [2.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    np.testing.assert_allclose(got[4], [3.464101791381836] * 3 + [1.0], rtol=1e-6)


def test_hostile_ids_are_refused_before_allocating():
    # a sorted id of 2**62 asks for 2**62 rows: the allocation check refuses them, naming the
    # node (a TypeError from the executor's error path before); no rows of no elements
    # allocate nothing, not even a count per segment
    x = tf.placeholder(tf.float32, [None, 3])
    empty = tf.placeholder(tf.float32, [None, 0])
    ids = tf.placeholder(tf.int64, [None])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.ResourceExhaustedError, match="SegmentSum"):
            sess.run(tf.segment_sum(x, ids), {x: np.ones((2, 3)), ids: [0, 2**62]})
        assert sess.run(tf.segment_max(empty, ids), {empty: np.ones((2, 0)),
                                                     ids: [0, 2**40]}).shape == (2**40 + 1, 0)
        assert sess.run(tf.unsorted_segment_mean(empty, ids, 2**40), {
            empty: np.ones((2, 0)), ids: [0, 1]}).shape == (2**40, 0)
        with pytest.raises(InvalidArgumentError, match=r"= 4611686018427387904 is out of range"):
            sess.run(tf.unsorted_segment_sum(x, ids, 2), {x: np.ones((2, 3)), ids: [0, 2**62]})
        assert sess.run(tf.segment_sum(x, ids), {x: np.ones((2, 3)), ids: [0, 1]}).shape == (
            2, 3)
