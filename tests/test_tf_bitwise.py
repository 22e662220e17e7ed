"""tf.bitwise, tf.bitcast, tf.histogram_fixed_width_bins and tf.tensor_scatter_nd_max / min
against TensorFlow's: the values, static shapes and errors were recorded from TensorFlow
(tensorflow-cpu 2.21, tf.compat.v1 with v2 behaviour off) on 2026-11-27 and written here;
tensor_scatter_nd_max / min's gradients against TF's recorded ones (ties included) and, with
their forward values, against torch's scatter_reduce in tests/op_cases_indexing.py."""
import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_shifts_out_of_range_as_tensorflow(plan_memory):
    cases = [  # (x, y, dtype, recorded left_shift, recorded right_shift)
        ([1, -8, 127, -128, 5], [-1, 1, 8, 9, 100], tf.int8,
         [1, -16, -128, 0, -128], [1, -4, 0, -1, 0]),
        ([1, -8, 7, -1, 12345], [-3, 2, 31, 32, 40], tf.int32,
         [1, -32, -2147483648, -2147483648, -2147483648], [1, -2, 0, -1, 0]),
        ([1, 255, 128, 7], [1, 1, 7, 9], tf.uint8, [2, 254, 0, 128], [0, 127, 1, 0]),
        ([3, -5], [63, 64], tf.int64, [-9223372036854775808, -9223372036854775808], None),
        ([3, -5], [63, 70], tf.int64, None, [0, -1]),
    ]
    fetches = []
    for x, y, dtype, *_ in cases:
        x, y = tf.constant(x, dtype), tf.constant(y, dtype)
        fetches.append((tf.bitwise.left_shift(x, y), tf.bitwise.right_shift(x, y)))
    with tf.Session(plan_memory=plan_memory) as sess:
        for (left, right), (*_, dtype, want_left, want_right) in zip(sess.run(fetches), cases):
            assert left.dtype == np.dtype(dtype.name)
            if want_left is not None:
                assert left.tolist() == want_left
            if want_right is not None:
                assert right.tolist() == want_right


def test_bitwise_values_as_tensorflow(plan_memory):
    a = tf.constant([[12, -7, 0]], tf.int32)
    b = tf.placeholder(tf.int32, [2, 1])
    ops = [tf.bitwise.bitwise_and(a, b), tf.bitwise.bitwise_or(a, b),
           tf.bitwise.bitwise_xor(a, b), tf.bitwise.invert(tf.constant([0, 5, -1])),
           tf.bitwise.invert(tf.constant([0, 5, 255], tf.uint8)),
           tf.bitwise.invert(tf.constant([0, 5], tf.int16))]
    with tf.Session(plan_memory=plan_memory) as sess:
        got = [v.tolist() for v in sess.run(ops, {b: [[10], [3]]})]
    assert got == [[[8, 8, 0], [0, 1, 0]], [[14, -5, 10], [15, -5, 3]],
                   [[6, -13, 10], [15, -6, 3]], [-1, -6, 0], [255, 250, 0], [-1, -6]]
    assert tf.gradients(tf.cast(ops[0], tf.float32), a) == [None]
    allowed = "int8, int16, int32, int64, uint8, uint16, uint32, uint64"
    with pytest.raises(TypeError, match=f"parameter 'x' has DataType float32 not in list of "
                                        f"allowed values: {allowed}"):
        tf.bitwise.bitwise_and(tf.constant([1.0]), tf.constant([2.0]))
    with pytest.raises(TypeError, match="Input 'y' of 'BitwiseAnd' Op has type int64 that "
                                        "does not match type int32 of argument 'x'."):
        tf.bitwise.bitwise_and(tf.constant([1]), tf.constant([2], tf.int64))
    with pytest.raises(TypeError, match="DataType bool not in list"):
        tf.bitwise.left_shift(tf.constant([True]), tf.constant([True]))
    with pytest.raises(AttributeError, match="tf.bitwise.popcount is not supported"):
        tf.bitwise.popcount  # noqa: B018


def test_bitcast_values_and_shapes_as_tensorflow(plan_memory):
    f = tf.constant([1.0, -2.5], tf.float32)
    g = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8]], tf.uint8)
    h = tf.constant([1.0, 2.0], tf.float64)
    casts = [tf.bitcast(f, tf.int32), tf.bitcast(f, tf.uint8), tf.bitcast(f, tf.float64),
             tf.bitcast(g, tf.int32), tf.bitcast(tf.constant([[1, 2], [3, 4]], tf.uint8),
                                                 tf.int16),
             tf.bitcast(h, tf.int32), tf.bitcast(h, tf.float16), tf.bitcast(tf.constant(3),
                                                                           tf.uint8)]
    # recorded static shapes: (2,), (2, 4), (), (2,), (2,), (2, 2), (2, 4), (4,)
    assert [c.get_shape().as_list() for c in casts] == [[2], [2, 4], [], [2], [2], [2, 2],
                                                        [2, 4], [4]]
    fed = tf.placeholder(tf.float32, [None, 3])
    assert tf.bitcast(fed, tf.uint8).get_shape().as_list() == [None, 3, 4]
    assert tf.bitcast(tf.placeholder(tf.uint8, [None, 4]), tf.float32).get_shape().as_list() == [
        None]
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run(casts)
    assert got[0].tolist() == [1065353216, -1071644672]
    assert got[1].tolist() == [[0, 0, 128, 63], [0, 0, 32, 192]]
    assert got[2] == -8.000001892447472 and got[2].dtype == np.float64
    assert got[3].tolist() == [67305985, 134678021]
    assert got[4].tolist() == [513, 1027]
    assert got[5].tolist() == [[0, 1072693248], [0, 1073741824]]
    assert got[6].dtype == np.float16 and got[6].view(np.uint16).tolist() == [
        [0, 0, 0, 16368], [0, 0, 0, 16384]]  # float64 1.0 and 2.0's bits, as numpy's view
    assert got[7].tolist() == [3, 0, 0, 0]
    assert tf.gradients(tf.cast(casts[0], tf.float32), f) == [None]


def test_bitcast_shape_errors_as_tensorflow():
    # recorded: "Cannot bitcast from 4 to 5 due to shape. 3 does not match 2" (uint8 = 4,
    # int16 = 5 in TF's DataType); at run time "Cannot bitcast from 4 to 1" for a fed shape
    with pytest.raises(ValueError, match="Cannot bitcast from 4 to 5 due to shape. 3 does not "
                                         "match 2"):
        tf.bitcast(tf.constant([[1, 2, 3], [1, 2, 3]], tf.uint8), tf.int16)
    with pytest.raises(TypeError, match="parameter 'input' has DataType bool not in list"):
        tf.bitcast(tf.constant([True, False]), tf.uint8)
    fed = tf.placeholder(tf.uint8, [3, None])
    as_float = tf.bitcast(fed, tf.float32)
    assert as_float.get_shape().as_list() == [3]
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="Cannot bitcast from 4 to 1 due to shape"):
            sess.run(as_float, {fed: np.zeros((3, 2), np.uint8)})
        assert sess.run(as_float, {fed: np.zeros((3, 4), np.uint8)}).tolist() == [0, 0, 0]


def test_histogram_fixed_width_bins_as_tensorflow(plan_memory):
    values = tf.placeholder(tf.float32, [None, 3])
    bins = tf.histogram_fixed_width_bins(values, [0.0, 5.0], nbins=5)
    doubles = tf.histogram_fixed_width_bins(tf.constant([0.1, 0.5, 0.9], tf.float64),
                                            tf.constant([0.0, 1.0], tf.float64), nbins=3,
                                            dtype=tf.int64)
    by_tensor = tf.histogram_fixed_width_bins([0.25, 0.75], [0.0, 1.0], nbins=tf.constant(2))
    assert bins.dtype == tf.int32 and doubles.dtype == tf.int32  # recorded: dtype ignored
    assert bins.get_shape().as_list() == [None, 3]
    with tf.Session(plan_memory=plan_memory) as sess:
        # recorded: [[0, 0, 1], [2, 4, 4]], [0, 1, 2], [0, 1]
        got = sess.run(bins, {values: [[-1.0, 0.0, 1.5], [2.0, 5.0, 4.99]]})
        assert got.tolist() == [[0, 0, 1], [2, 4, 4]]
        assert sess.run(doubles).tolist() == [0, 1, 2]
        assert sess.run(by_tensor).tolist() == [0, 1]
    with pytest.raises(TypeError, match="int32 and float64"):  # recorded: TF's TypeError too
        tf.histogram_fixed_width_bins(tf.constant([1, 7, 3, 12]), [0, 10], nbins=4)


def test_tensor_scatter_nd_max_min_as_tensorflow(plan_memory):
    tensor = tf.constant([[1., 5., 2.], [3., 3., 3.], [0., 0., 9.]])
    updates = tf.constant([[4., 5., 1.], [2., 7., 3.], [6., 0., 10.]])
    weights = tf.constant([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]])
    results, grads = [], []
    for scatter in (tf.tensor_scatter_nd_max, tf.tensor_scatter_nd_min):
        result = scatter(tensor, [[0], [0], [2]], updates)
        results.append(result)
        grads.append(tf.gradients(tf.reduce_sum(result * weights), [tensor, updates]))
    ints = [tf.tensor_scatter_nd_max(tf.constant([1, 8, 3]), [[0], [2]], tf.constant([5, 2])),
            tf.tensor_scatter_nd_min(tf.constant([[1, 8], [3, 4]]), [[0, 1], [1, 0]],
                                     tf.constant([5, 2]))]
    with tf.Session(plan_memory=plan_memory) as sess:
        got, got_grads, got_ints = sess.run([results, grads, ints])
    # recorded from TensorFlow (its _TensorScatterMinOrMaxGrad shares ties evenly)
    assert got[0].tolist() == [[4, 7, 3], [3, 3, 3], [6, 0, 10]]
    assert got[1].tolist() == [[1, 5, 1], [3, 3, 3], [0, 0, 9]]
    assert [g.tolist() for g in got_grads[0]] == [
        [[0, 0, 0], [4, 5, 6], [0, 4, 0]], [[1, 0, 0], [0, 2, 3], [7, 4, 9]]]
    assert [g.tolist() for g in got_grads[1]] == [
        [[1, 1, 0], [4, 5, 6], [7, 4, 9]], [[0, 1, 3], [0, 0, 0], [0, 4, 0]]]
    assert [v.tolist() for v in got_ints] == [[5, 8, 3], [[1, 5], [2, 4]]]
