"""tf.py_function and tf.timestamp against TensorFlow's: the values and errors were recorded
from TensorFlow (tensorflow-cpu 2.21, tf.compat.v1 with v2 behaviour off, whose EagerPyFunc
and Timestamp are TF 1.15's) on 2026-11-27 and written here."""
import time

import numpy as np
import pytest

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")

def test_py_function_values_as_tensorflow(plan_memory):
    x = tf.placeholder(tf.float32, [3])
    seen = []

    def double(a):
        seen.append((type(a.numpy()), a.numpy().dtype, a.shape))
        return a.numpy() * 2

    y = tf.py_function(double, [x], tf.float32)
    pair = tf.py_function(lambda a: [a.numpy() + 1, a.numpy().sum()], [x],
                          [tf.float32, tf.float32])
    one = tf.py_function(lambda a: [a.numpy()], [x], [tf.float32])
    # recorded: a tensor for a single dtype, a list for a list (of one too), op EagerPyFunc
    assert isinstance(y, tf.Tensor) and y.name == "EagerPyFunc:0" and y.dtype == tf.float32
    assert isinstance(pair, list) and len(pair) == 2 and isinstance(one, list) and len(one) == 1
    feed = {x: [1, 2, 3]}
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run([y, pair, one], feed)
        # recorded: [2, 4, 6], [[2, 3, 4], 6.0 (a float32 scalar)], [[1, 2, 3]]
        np.testing.assert_array_equal(got[0], np.float32([2, 4, 6]))
        np.testing.assert_array_equal(got[1][0], np.float32([2, 3, 4]))
        assert got[1][1] == np.float32(6) and got[1][1].dtype == np.float32
        assert np.shape(got[1][1]) == ()
        np.testing.assert_array_equal(got[2][0], np.float32([1, 2, 3]))
        assert seen[0] == (np.ndarray, np.float32, (3,))
        # recorded: converted as tf.convert_to_tensor: 2.5 -> 2.5 float32, [1, 2] -> int64,
        # a float64 array to float32, an int array to float32; a method of an array works
        assert sess.run(tf.py_function(lambda a: 2.5, [x], tf.float32), feed) == 2.5
        as_int64 = sess.run(tf.py_function(lambda a: [1, 2], [x], tf.int64), feed)
        assert as_int64 == 1 and as_int64.dtype == np.int64  # extra results dropped, as TF's
        narrowed = sess.run(tf.py_function(lambda a: np.array([1.5]), [x], tf.float32), feed)
        assert narrowed.dtype == np.float32 and narrowed.tolist() == [1.5]
        widened = sess.run(tf.py_function(lambda a: np.array([1, 2]), [x], tf.float32), feed)
        assert widened.dtype == np.float32 and widened.tolist() == [1.0, 2.0]
        np.testing.assert_array_equal(
            sess.run(tf.py_function(lambda a: a * 3.0, [x], tf.float32), feed), [3, 6, 9])
        # no inputs: recorded 1.0
        assert sess.run(tf.py_function(lambda: np.float32(1.0), [], tf.float32)) == 1.0


def test_py_function_read_by_ops_and_stateful():
    x = tf.placeholder(tf.float32, [2])
    calls = []
    y = tf.py_function(lambda a: calls.append(1) or a.numpy() ** 2, [x], tf.float32)
    y.set_shape([2])
    z = tf.reduce_sum(y) + 1
    with tf.Session() as sess:
        assert sess.run(z, {x: [3, 4]}) == 26.0
        assert sess.run(z, {x: [3, 4]}) == 26.0
    assert len(calls) == 2  # stateful: runs every time
    assert y.node.attrs["stateful"] is True


@pytest.mark.parametrize("func, tout, error, message", [
    # recorded: TypeError "Cannot convert 1.5 to EagerTensor of dtype int32" as
    # InvalidArgumentError; ZeroDivisionError as UnknownError; None as InvalidArgumentError
    (lambda a: 1.5, tf.int32, tf.errors.InvalidArgumentError,
     "Cannot convert 1.5 to EagerTensor of dtype int32"),
    (lambda a: 1 / 0, tf.float32, tf.errors.UnknownError, "ZeroDivisionError"),
    (lambda a: None, tf.float32, tf.errors.InvalidArgumentError, "Cannot convert None"),
    (lambda a: [1.0], [tf.float32, tf.float32], tf.errors.InvalidArgumentError,
     "returned 1 values, but Tout has 2 dtypes"),
])
def test_py_function_errors_leave_the_session_usable(func, tout, error, message):
    x = tf.placeholder(tf.float32, [3])
    bad = tf.py_function(func, [x], tout)
    fine = x * 2
    with tf.Session() as sess:
        with pytest.raises(error, match=message):
            sess.run(bad, {x: [1, 2, 3]})
        np.testing.assert_array_equal(sess.run(fine, {x: [1, 2, 3]}), [2, 4, 6])


def test_py_function_has_no_gradient_and_checks_its_arguments():
    x = tf.placeholder(tf.float32, [3])
    y = tf.py_function(lambda a: a.numpy() * 2, [x], tf.float32)
    assert tf.gradients(y, x) == [None]  # TinyFlow: no tape (the module docstring says why)
    with pytest.raises(TypeError, match="tf.py_function: func must be callable"):
        tf.py_function(3, [x], tf.float32)
    with pytest.raises(ValueError, match=r"tf.py_function with Tout=\[\]"):
        tf.py_function(lambda a: None, [x], [])


def test_timestamp():
    stamp = tf.timestamp()
    # recorded: Tensor("Timestamp:0", shape=(), dtype=float64), op Timestamp, no gradient
    assert stamp.name == "Timestamp:0" and stamp.dtype == tf.float64
    assert stamp.get_shape().as_list() == []
    x = tf.placeholder(tf.float64, [2])
    assert tf.gradients(stamp * x, x)[0] is not None and tf.gradients(stamp, x) == [None]
    with tf.Session() as sess:
        before = time.time()
        first = sess.run(stamp)
        later, scaled = sess.run([stamp, stamp * x], {x: [1.0, 0.0]})
        after = time.time()
    assert isinstance(first, np.float64) and before <= first <= later <= after
    assert scaled[1] == 0.0 and before <= scaled[0] <= after
