"""TF-1 math names programs use (tf.sin ... tf.expm1, tf.atan2, tf.cumsum, tf.cumprod): TensorFlow
1.15's semantics, with numbers from real TensorFlow (tf.compat.v1 of TF 2.21, graph mode) written
down where they are.  Values and gradients of every op against torch are tests/op_cases_tf_math.py
(in test_ops' table)."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.nnvm import DTypeError, ShapeError

pytestmark = pytest.mark.usefixtures("fresh_graph")

NAMES = ("sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "erf", "erfc",
         "lgamma", "digamma", "expm1", "cumsum", "cumprod")


def run(fetches, plan_memory=True):
    with tf.Session(plan_memory=plan_memory) as sess:
        return sess.run(fetches)


def test_the_names_are_tf_and_tf_math_functions():
    from tinyflow.python.ops import math_ops
    for name in NAMES:
        assert getattr(tf, name) is getattr(tf.math, name) is getattr(math_ops, name), name
        assert getattr(tf.compat.v1, name) is getattr(tf, name)


@pytest.mark.parametrize("plan_memory", [True, False])
def test_cumsum_and_cumprod_flags_as_tensorflow(plan_memory):
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    m = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    got = run([tf.cumsum(x, exclusive=True, reverse=True), tf.cumsum(x, exclusive=True),
               tf.cumsum(x, reverse=True), tf.cumprod(x, exclusive=True, reverse=True),
               tf.cumprod(m, axis=1, exclusive=True), tf.cumsum(m, axis=-1, reverse=True),
               tf.cumsum(m)], plan_memory)
    # real TF 1.15 semantics (tf.compat.v1, TF 2.21):
    want = [[9, 7, 4, 0], [0, 1, 3, 6], [10, 9, 7, 4], [24, 12, 4, 1], [[1, 1, 2], [1, 4, 20]],
            [[6, 5, 3], [15, 11, 6]], [[1, 2, 3], [5, 7, 9]]]
    for value, expected in zip(got, want):
        np.testing.assert_array_equal(value, np.array(expected, np.float32))


def test_cumulative_gradients_as_tensorflow():
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    got = run(tf.gradients(tf.cumprod(x, exclusive=True, reverse=True), x)
              + tf.gradients(tf.cumsum(x * x, exclusive=True), x))
    # real TF: [0, 12, 12, 10] and [6, 8, 6, 0]
    np.testing.assert_allclose(got[0], [0.0, 12.0, 12.0, 10.0], rtol=1e-6)
    np.testing.assert_allclose(got[1], [6.0, 8.0, 6.0, 0.0], rtol=1e-6)


def test_cumsum_of_integers_and_of_an_empty_axis():
    got = run([tf.cumsum(tf.constant([[1, 2], [3, 4]], tf.int32), axis=1, exclusive=True),
               tf.cumprod(tf.zeros([2, 0]), axis=1)])
    assert got[0].dtype == np.int32
    np.testing.assert_array_equal(got[0], [[0, 1], [0, 3]])
    assert got[1].shape == (2, 0)


def test_cumsum_refuses_a_bad_axis():
    with pytest.raises(ShapeError, match="axis 2 is out of range.*shape"):
        tf.cumsum(tf.zeros([2, 3]), axis=2)
    with pytest.raises(ShapeError, match="axis 0 is out of range.*rank at least 1"):
        tf.cumprod(tf.constant(1.0))
    with pytest.raises(TypeError, match="tf.cumsum: axis must be a Python integer"):
        tf.cumsum(tf.zeros([2]), axis=tf.constant(0))


def test_erf_and_its_gradient_as_tensorflow():
    e = tf.constant([-1.0, 0.0, 0.5, 2.0])
    got = run([tf.erf(e)] + tf.gradients(tf.erf(e), e) + tf.gradients(tf.math.erfc(e), e))
    # real TF:
    np.testing.assert_allclose(got[0], [-0.84270084, 0.0, 0.5204999, 0.99532235], rtol=1e-6)
    erf_grad = [0.41510752, 1.1283792, 0.87878263, 0.020666987]
    np.testing.assert_allclose(got[1], erf_grad, rtol=1e-6)
    np.testing.assert_allclose(got[2], np.negative(erf_grad), rtol=1e-6)


def test_atan2_quadrants_and_gradients_as_tensorflow():
    y = tf.constant([1.0, 1.0, -1.0, -1.0, 0.0, 0.0])
    x = tf.constant([1.0, -1.0, -1.0, 1.0, -1.0, 1.0])
    angle = tf.atan2(y, x)
    got = run([angle] + tf.gradients(angle, [y, x]))
    # real TF: atan2(y, x) is the angle of the point (x, y); (0, -1) gives +pi
    np.testing.assert_allclose(got[0], [0.7853982, 2.3561945, -2.3561945, -0.7853982,
                                        3.1415927, 0.0], rtol=1e-6)
    np.testing.assert_allclose(got[1], [0.5, -0.5, -0.5, 0.5, -1.0, 1.0], rtol=1e-6)
    np.testing.assert_allclose(got[2], [-0.5, -0.5, 0.5, 0.5, 0.0, 0.0], rtol=1e-6, atol=0)


def test_atan2_gradient_sums_over_broadcast_axes():
    y = tf.constant(np.full((2, 3), 2.0, np.float32))
    x = tf.constant(1.0)
    got = run(tf.gradients(tf.atan2(y, x), [y, x]))
    # d/dx atan2(y, x) = -y / (x^2 + y^2) = -0.4, six times
    assert got[1].shape == () and np.isclose(got[1], -2.4)
    np.testing.assert_allclose(got[0], np.full((2, 3), 0.2), rtol=1e-6)


def test_lgamma_digamma_and_their_gradients_as_tensorflow():
    p = tf.constant([0.5, 1.0, 2.5])
    got = run([tf.lgamma(p), tf.lgamma(tf.constant([-1.5, -0.5]))]
              + tf.gradients(tf.lgamma(p), p) + tf.gradients(tf.digamma(p), p))
    # real TF (lgamma is log |Gamma|: finite between the negative poles)
    np.testing.assert_allclose(got[0], [0.5723649, 0.0, 0.28468287], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got[1], [0.86004704, 1.2655121], rtol=1e-6)
    np.testing.assert_allclose(got[2], [-1.9635108, -0.5772159, 0.7031568], rtol=1e-6)
    np.testing.assert_allclose(got[3], [4.934802, 1.644934, 0.49035773], rtol=1e-6)


def test_second_derivatives_compose():
    # d2/dx2 sin = -sin; d2/dx2 digamma = polygamma(2, x) = -2 zeta(3) at 1
    x = tf.constant([0.3, 1.0])
    first = tf.gradients(tf.sin(x), x)[0]
    d_digamma = tf.gradients(tf.digamma(x), x)[0]
    got = run(tf.gradients(first, x) + tf.gradients(d_digamma, x))
    np.testing.assert_allclose(got[0], -np.sin([0.3, 1.0]), rtol=1e-6)
    np.testing.assert_allclose(got[1][1], -2 * 1.2020569, rtol=1e-5)


def test_float_functions_refuse_integers():
    for function in (tf.sin, tf.erf, tf.lgamma, tf.expm1):
        with pytest.raises(DTypeError, match="float"):
            function(tf.constant([1, 2]))
    with pytest.raises(DTypeError, match="float"):
        tf.atan2(tf.constant([1]), tf.constant([2]))


# -- tf.norm and tf.einsum ---------------------------------------------------------------------
NORM_INPUT = [[3.0, -4.0], [1.0, 2.0], [0.0, -2.0]]
# real TF (tf.compat.v1.norm) on NORM_INPUT:
NORMS = [({}, 5.8309517), ({"ord": 1, "axis": 0}, [4.0, 8.0]),
         ({"ord": 1, "axis": 1, "keepdims": True}, [[7.0], [3.0], [2.0]]),
         ({"ord": np.inf, "axis": -1}, [4.0, 2.0, 2.0]),
         ({"ord": 2, "axis": 1}, [5.0, 2.236068, 2.0]),
         ({"ord": 3, "axis": 0}, [3.0365891, 4.3088694]),
         ({"ord": 0.5, "axis": 1}, [13.928204, 5.828428, 1.9999999]),
         ({"ord": "fro", "axis": [0, 1]}, 5.8309517), ({"ord": 1, "axis": (0, 1)}, 8.0),
         ({"ord": np.inf, "axis": (0, 1)}, 7.0),
         ({"ord": 1, "axis": (1, 0), "keepdims": True}, [[7.0]]),
         ({"keepdims": True}, [[5.8309517]]), ({"ord": 1, "keep_dims": True}, [[12.0]])]


@pytest.mark.parametrize("kwargs, expected", NORMS, ids=[str(k) for k, _ in NORMS])
def test_norm_as_tensorflow(kwargs, expected):
    got = run(tf.norm(tf.constant(NORM_INPUT), **kwargs))
    assert np.shape(got) == np.shape(expected)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_norm_refuses_what_tensorflow_refuses():
    x = tf.constant(NORM_INPUT)
    # real TF's ValueErrors
    for kwargs, message in (({"ord": "fro", "axis": 1}, "supported vector norm, got fro"),
                            ({"ord": 0, "axis": 1}, "supported vector norm, got 0"),
                            ({"ord": -1}, "supported vector norm, got -1"),
                            ({"axis": (0, 1, 1)}, "tuple of 2 unique integers"),
                            ({"axis": (1, 1)}, "tuple of 2 unique integers"),
                            ({"ord": "nuc", "axis": (0, 1)}, "supported matrix norm")):
        with pytest.raises(ValueError, match=message):
            tf.norm(x, **kwargs)
    # the matrix 2-norm: the largest singular value, as TF's (tests/test_linalg.py)
    np.testing.assert_allclose(run(tf.linalg.norm(x, ord=2, axis=(0, 1))),
                               np.linalg.norm(NORM_INPUT, 2), rtol=1e-6)


def test_norm_gradients_as_tensorflow():
    x = tf.constant(NORM_INPUT)
    got = run(tf.gradients(tf.norm(x, ord=1, axis=0), x) + tf.gradients(tf.norm(x * 0.0), x))
    # real TF: sign(x) (0 at 0); the euclidean norm of zeros: NaN (sqrt's gradient at 0)
    np.testing.assert_array_equal(got[0], np.sign(NORM_INPUT))
    assert np.isnan(got[1]).all()


def test_einsum_as_tensorflow():
    a = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4) - 5)
    c = tf.constant(np.arange(4, dtype=np.float32) + 1)
    cube = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10)
    got = run([tf.einsum("ij,jk", a, b), tf.einsum("ji", a), tf.einsum("ij->", a),
               tf.einsum("ij,jk,k->i", a, b, c), tf.einsum("ij,ij->i", a, a),
               tf.einsum("b...,b...->b", cube, cube), tf.einsum("ij, jk -> i k", a, b),
               tf.linalg.einsum("...jk,k", cube, c)])
    # real TF 1.15's einsum (special_math_ops._einsum_v1 of TF 2.21): implicit outputs are the
    # labels seen once, sorted; spaces are dropped
    matmul = [[5.0, 8.0, 11.0, 14.0], [-4.0, 8.0, 20.0, 32.0]]
    for value, expected in zip(got, [matmul, [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]], 15.0,
                                     [110.0, 200.0], [5.0, 50.0], [5.06, 38.18], matmul]):
        np.testing.assert_allclose(value, expected, rtol=1e-6)
    np.testing.assert_allclose(got[7], np.arange(24).reshape(2, 3, 4) / 10 @ np.arange(1, 5),
                               rtol=1e-6)


def test_einsum_refuses_what_tensorflow_1_refuses():
    a = tf.constant(np.ones((2, 3), np.float32))
    b = tf.constant(np.ones((3, 4), np.float32))
    # real TF 1.15's ValueErrors (the trace "ii" TF computes; TinyFlow has no trace)
    for equation, inputs, message in (
            ("ij,jk->ikz", (a, b), "Invalid equation"), ("ij,jk->ii", (a, b), "Invalid equation"),
            ("iij->j", (tf.zeros([2, 2, 3]),), "appears more than once"),
            ("ii", (tf.zeros([2, 2]),), "appears more than once"),
            ("ij,jk", (a,), "Got 1 arguments"), ("ij;jk", (a, b), "incorrect format"),
            ("a...b...", (tf.zeros([2, 3, 4]),), "Excess number"),
            ("i.j", (a,), "Period"), ("bij,jk->bik", (tf.zeros([2, 3, 4]), b), "label 'j'")):
        with pytest.raises(ValueError, match=message):
            tf.einsum(equation, *inputs)


def test_tf_linalg_names():
    assert tf.linalg.norm is tf.norm and tf.linalg.einsum is tf.einsum
    assert tf.linalg.matmul is tf.matmul
    with pytest.raises(AttributeError, match="tf.linalg.logm is TensorFlow 1.15's, but "
                       "TinyFlow"):
        tf.linalg.logm  # noqa: B018


def test_ops_refuse_attributes_a_graph_could_carry():
    # create_op and LoadJSON run the same shape rules: a bad attribute is an error, not a crash
    from tinyflow.nnvm.symbol import create_op
    a, b = tf.zeros([2, 3]), tf.zeros([3, 4])
    for equation, message in (("ij,jk,kl->il", "one or two inputs"), (3, "letters, commas"),
                              ("ij,jk->ikk", "twice"), ("ij,jk->z", "not all in the inputs"),
                              ("ijk,jk->i", "rank 3")):
        inputs = (a, b, b)[:str(equation).count(",") + 1]
        with pytest.raises(ShapeError, match=message):
            create_op("einsum", *inputs, equation=equation)
    for order in (-1, 1.5, "1"):
        with pytest.raises(ShapeError, match="order must be an integer"):
            create_op("_polygamma", a, order=order)
    for axis in ("0", 1.0, True):
        with pytest.raises(ShapeError, match="axis must be an integer"):
            create_op("cumsum", a, axis=axis, exclusive=False, reverse=False)
