"""TensorFlow 1.15's tf.space_to_depth / depth_to_space, tf.matrix_transpose, tf.trace, tf.diag,
tf.diag_part, tf.matrix_* (band, diagonals), tf.reverse_v2, tf.rint, tf.accumulate_n, tf.Assert
and tf.case: values, refusals and messages from real TensorFlow (tf.compat.v1, graph mode, the
numbers written down here); gradients of the composed functions against finite differences and
numpy (tf.diag's and tf.diag_part's are each other's).  The ops' own values and gradients are
test_ops' (tests/op_cases_matrix_diag.py)."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients
from tinyflow.nnvm.errors import InvalidArgumentError

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _run(fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed)


def test_space_to_depth_and_back_as_tf():
    x = tf.constant(np.arange(1, 33, dtype=np.float32).reshape(1, 4, 4, 2))
    y = tf.constant(np.arange(1, 17, dtype=np.float32).reshape(1, 2, 2, 4))
    deep, wide = _run([tf.space_to_depth(x, 2), tf.nn.depth_to_space(y, 2)])
    # from real TF
    assert deep.reshape(-1).tolist() == [1, 2, 3, 4, 9, 10, 11, 12, 5, 6, 7, 8, 13, 14, 15, 16,
                                         17, 18, 19, 20, 25, 26, 27, 28, 21, 22, 23, 24, 29, 30,
                                         31, 32]
    assert wide.reshape(-1).tolist() == [1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16]
    assert deep.shape == (1, 2, 2, 8) and wide.shape == (1, 4, 4, 1)
    shape = tf.space_to_depth(tf.placeholder(tf.float32, [None, 4, 6, 3]), 2).get_shape()
    assert shape.as_list() == [None, 2, 3, 12]
    with pytest.raises(ValueError, match="evenly divisible by 2 but is 5"):
        tf.space_to_depth(tf.placeholder(tf.float32, [None, 5, 6, 3]), 2)
    with pytest.raises(ValueError, match="evenly divisible by 4 but is 3"):
        tf.depth_to_space(tf.placeholder(tf.float32, [None, 5, 6, 3]), 2)
    # NCHW: the same blocks, channels first (numpy's transposes of the NHWC result)
    nchw = _run(tf.space_to_depth(tf.transpose(x, [0, 3, 1, 2]), 2, data_format="NCHW"))
    np.testing.assert_array_equal(nchw, deep.transpose(0, 3, 1, 2))
    round_trip = tf.depth_to_space(tf.space_to_depth(x, 2), 2)
    np.testing.assert_array_equal(_run(round_trip), _run(x))


def test_composed_gradients_against_finite_differences():
    check_gradients(lambda x: tf.space_to_depth(x, 2), [(2, 4, 6, 3)])
    check_gradients(lambda x: tf.depth_to_space(x, 2), [(2, 2, 3, 8)])
    check_gradients(lambda x: tf.trace(x), [(2, 3, 4)])
    check_gradients(lambda x: tf.diag(x), [(2, 3)])
    check_gradients(lambda x: tf.diag_part(x), [(2, 3, 2, 3)])
    check_gradients(lambda x: tf.matrix_transpose(x), [(2, 3, 4)])


def test_diagonals_trace_and_band_as_tf():
    m = tf.constant(np.arange(1, 13, dtype=np.float32).reshape(3, 4))
    got = _run([tf.matrix_diag_part(m), tf.linalg.trace(m),
                tf.trace(tf.reshape(tf.range(8.0), [2, 2, 2])),
                tf.diag(tf.constant([[1, 2], [3, 4]])),
                tf.diag_part(tf.reshape(tf.range(16), [2, 2, 2, 2])),
                tf.matrix_band_part(tf.ones([3, 4]), 1, -1),
                tf.gradients(tf.matrix_diag_part(m), m, grad_ys=[tf.constant([1.0, 2.0, 3.0])])[0]])
    # from real TF
    assert got[0].tolist() == [1, 6, 11] and got[1] == 18 and got[2].tolist() == [3, 11]
    assert got[3].shape == (2, 2, 2, 2) and got[3][1, 0, 1, 0] == 3 and got[3].sum() == 10
    assert got[4].tolist() == [[0, 5], [10, 15]]
    assert got[5].tolist() == [[1, 1, 1, 1], [1, 1, 1, 1], [0, 1, 1, 1]]
    assert got[6].tolist() == [[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 0]]
    assert tf.linalg.band_part is tf.matrix_band_part and tf.linalg.tensor_diag is tf.diag
    assert tf.linalg.diag is tf.matrix_diag and tf.linalg.set_diag is tf.matrix_set_diag
    with pytest.raises(ValueError, match="should be a \\(batch\\) matrix with rank >= 2"):
        tf.matrix_transpose(tf.ones([3]))
    assert tf.linalg.transpose(tf.ones([2, 3, 4])).get_shape().as_list() == [2, 4, 3]
    with pytest.raises(ValueError, match="main diagonal only"):
        tf.matrix_diag(tf.ones([3]), k=1)
    with pytest.raises(ValueError, match="must be"):
        tf.matrix_set_diag(tf.ones([3, 4]), tf.ones([4]))


def test_reverse_v2_rint_accumulate_n_as_tf():
    assert tf.reverse_v2 is tf.reverse
    values = _run(tf.rint(tf.constant([-1.5, -0.5, 0.5, 1.5, 2.5, 2.6])))
    assert values.tolist() == [-2.0, -0.0, 0.0, 2.0, 2.0, 3.0]  # from real TF
    assert tf.math.rint is tf.rint and tf.math.accumulate_n is tf.accumulate_n
    total = tf.accumulate_n([tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])])
    assert _run(total).tolist() == [4.0, 6.0]
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are not compatible"):
        tf.accumulate_n([tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0, 5.0])])
    with pytest.raises(ValueError, match="at least one Tensor with the same dtype and shape"):
        tf.accumulate_n([])
    x = tf.placeholder(tf.float32, [2])
    check_gradients(lambda a, b: tf.accumulate_n([a, b, a]), [(2,), (2,)])
    assert tf.gradients(tf.rint(x), x) == [None]  # TF registers no gradient for Rint


def test_assert_raises_tf_error_with_its_data():
    x = tf.constant([1, -2, 3, 4, 5])
    check = tf.Assert(tf.reduce_all(x > 0), ["x has a negative", x])
    assert check.op.type == "Assert"
    with tf.control_dependencies([check]):
        y = tf.identity(x)
    with tf.Session() as sess:
        # real TF's message: "assertion failed: [x has a negative] [1 -2 3...]"
        for fetch in (check, y):
            with pytest.raises(InvalidArgumentError,
                               match=r"assertion failed: \[x has a negative\] \[1 -2 3\.\.\.\]"):
                sess.run(fetch)
        with pytest.raises(InvalidArgumentError, match=r"assertion failed: \[\[1\.5 2\]\[3 4\]\] "
                                                        r"\[end\]"):
            sess.run(tf.Assert(tf.constant(False), [tf.constant([[1.5, 2.0], [3.0, 4.0]]),
                                                    "end"], summarize=10))
        with pytest.raises(InvalidArgumentError, match=r"In\[0\] should be a scalar: \[2\]"):
            sess.run(tf.Assert(tf.constant([True, False]), [x]))
        assert sess.run(tf.Assert(tf.constant(True), [x])) is None
        ok = tf.Assert(tf.reduce_all(x < 10), [x])
        with tf.control_dependencies([ok]):
            assert sess.run(tf.identity(x)).tolist() == [1, -2, 3, 4, 5]
    with pytest.raises(TypeError, match="bool"):
        tf.Assert(tf.constant(1), [x])


def test_case_as_tf():
    p = tf.placeholder(tf.int32, [])
    less, equal = tf.less(p, 0), tf.equal(p, 0)
    pairs = [(less, lambda: tf.constant(-1)), (equal, lambda: tf.constant(0))]
    with_default = tf.case(pairs, default=lambda: tf.constant(1))
    without = tf.case(pairs)
    wide = tf.less(p, 10)
    exclusive = tf.case([(wide, lambda: tf.constant(-1)), (equal, lambda: tf.constant(0))],
                        default=lambda: tf.constant(1), exclusive=True)
    by_dict = tf.case({wide: lambda: tf.constant(-1), equal: lambda: tf.constant(0)},
                      default=lambda: tf.constant(1))
    with tf.Session() as sess:
        # from real TF
        assert [sess.run(with_default, {p: v}) for v in (-5, 0, 5)] == [-1, 0, 1]
        assert [sess.run(without, {p: v}) for v in (-5, 0)] == [-1, 0]
        with pytest.raises(InvalidArgumentError, match=r"assertion failed: \[Input error: None "
                                                        r"of conditions evaluated as True:\] "
                                                        r"\[0 0\]"):
            sess.run(without, {p: 5})
        assert sess.run(exclusive, {p: 5}) == -1
        with pytest.raises(InvalidArgumentError, match=r"exclusive=True: more than 1 conditions "
                                                        r"\(.*\) evaluated as True:\] \[1 1\]"):
            sess.run(exclusive, {p: 0})
        # a dict in the order of its predicates' names: Equal before Less (TF gave 0)
        assert sess.run(by_dict, {p: 0}) == 0 and sess.run(by_dict, {p: 3}) == -1
    with pytest.raises(TypeError, match="pred must be a Tensor, got: True"):
        tf.case([(True, lambda: tf.constant(3))])
    with pytest.raises(TypeError, match="must be callable"):
        tf.case([(tf.constant(True), 3)])
    with pytest.raises(ValueError):  # TF: a ValueError too
        tf.case([], default=lambda: tf.constant(3))


def test_case_gradient_flows_through_the_branch_taken():
    p = tf.placeholder(tf.int32, [])
    x = tf.constant([1.0, 2.0])
    y = tf.case([(tf.less(p, 0), lambda: x * 3.0)], default=lambda: x * x)
    grad = tf.gradients(tf.reduce_sum(y), x)[0]
    assert _run(grad, {p: -1}).tolist() == [3.0, 3.0]
    assert _run(grad, {p: 1}).tolist() == [2.0, 4.0]
