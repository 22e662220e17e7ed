"""TensorFlow 1.15's assertions (tf.assert_*, tf.debugging.*), tf.check_numerics,
tf.add_check_numerics_ops and tf.print: messages, refusals and printed text written down from
real TensorFlow (tf.compat.v1 in graph mode, /work/tfvenv); check_numerics' gradient against
finite differences."""
import io

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients
from tinyflow.nnvm.errors import InvalidArgumentError

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _run(fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed)


def test_binary_assertions_fail_the_run_with_tfs_message():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.placeholder(tf.float32, [None], name="y")
    feed = {x: [1, 2, 3], y: [1, 5, 3]}
    # from real TF: "assertion failed: [msg] [Condition x == y did not hold element-wise:]
    # [x (Placeholder:0) = ] [1 2 3] [y (Placeholder_1:0) = ] [1 5 3]"
    for function, sym in [(tf.assert_equal, "=="), (tf.assert_less, "<"),
                          (tf.assert_none_equal, "!=")]:
        with pytest.raises(InvalidArgumentError, match=(
                rf"assertion failed: \[msg\] \[Condition x {sym} y did not hold element-wise:\] "
                rf"\[x \(x:0\) = \] \[1 2 3\] \[y \(y:0\) = \] \[1 5 3\]")):
            _run(function(x, y, message="msg"), feed)
    # those that hold: the run gives None, as an operation's
    assert _run(tf.assert_less_equal(x, y), feed) is None
    assert _run(tf.debugging.assert_greater_equal(y, x), feed) is None
    with pytest.raises(InvalidArgumentError, match=r"Condition x > y"):
        _run(tf.assert_greater(y, x), feed)  # 5 > 2 but 1 > 1 fails
    # real TF: "[x and y not equal to tolerance rtol = Tensor("assert_near/rtol:0", shape=(),
    # dtype=float32), atol = Tensor("assert_near/atol:0", shape=(), dtype=float32)]"
    with pytest.raises(InvalidArgumentError, match=(
            r'x and y not equal to tolerance rtol = Tensor\("assert_near/rtol:0", shape=\(\), '
            r'dtype=float32\), atol = Tensor\("assert_near/atol:0"')):
        _run(tf.assert_near(x, y), feed)
    assert _run(tf.assert_near(x, y + 1e-6, atol=1e-5), {x: [1, 2], y: [1, 2]}) is None


def test_sign_assertions_as_tf():
    x = tf.placeholder(tf.float32, [None], name="x")
    # from real TF: "assertion failed: [] [Condition x < 0 did not hold element-wise:]
    # [x (Placeholder:0) = ] [1 -2 0]"
    with pytest.raises(InvalidArgumentError, match=(
            r"assertion failed: \[\] \[Condition x < 0 did not hold element-wise:\] "
            r"\[x \(x:0\) = \] \[1 -2 0\]")):
        _run(tf.assert_negative(x), {x: [1, -2, 0]})
    for function, holds, fails in [(tf.assert_positive, [1, 2], [1, 0]),
                                   (tf.assert_non_negative, [0, 2], [-1, 0]),
                                   (tf.assert_non_positive, [0, -2], [1, 0]),
                                   (tf.assert_negative, [-1, -2], [-1, 0])]:
        check = function(x)
        assert _run(check, {x: holds}) is None
        with pytest.raises(InvalidArgumentError):
            _run(check, {x: fails})


def test_constants_that_fail_raise_as_the_assertion_is_made():
    # from real TF: InvalidArgumentError "\nCondition x == y did not hold element-wise:\nx
    # (Const:0) = \n[1 2]\ny (Const_1:0) = \n[1 3]"
    with pytest.raises(InvalidArgumentError) as error:
        tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]))
    assert str(error.value) == ("\nCondition x == y did not hold element-wise:\nx (Const:0) "
                                "= \n[1 2]\ny (Const_1:0) = \n[1 3]")
    with pytest.raises(InvalidArgumentError, match="Condition x > 0"):
        tf.assert_positive(tf.constant([1, -1]))
    assert _run(tf.assert_equal(1, 1)) is None  # holds: an operation to run


def test_static_checks_of_rank_dtype_and_shape_as_tf():
    x = tf.placeholder(tf.float32, [None], name="x")
    # messages from real TF
    with pytest.raises(ValueError, match=r"Tensor x:0 must have rank 2\.  Received rank 1, "
                                         r"shape \(\?,\)"):
        tf.assert_rank(x, 2)
    with pytest.raises(ValueError, match="must have rank at least 2.  Received rank 1"):
        tf.assert_rank_at_least(x, 2)
    with pytest.raises(ValueError, match=r"must have rank in \(0, 2\)\.  Received rank 1"):
        tf.assert_rank_in(x, [0, 2])
    with pytest.raises(TypeError, match='Expected "x" to be integer type.  Found: x:0 of '
                                        "dtype <dtype: 'float32'>"):
        tf.assert_integer(x)
    with pytest.raises(TypeError, match="x:0 must be of type tf.int32; got tf.float32"):
        tf.assert_type(x, tf.int32)
    with pytest.raises(TypeError, match=r"^m\.  x:0 must be of type"):  # real TF's "m.  "
        tf.assert_type(x, tf.int32, message="m")
    with pytest.raises(ValueError, match=r"^m\.  Tensor x:0 must have rank 2"):
        tf.assert_rank(x, 2, message="m")
    with pytest.raises(ValueError, match=r"^m\.  Expected scalar shape"):
        tf.assert_scalar(x, message="m")
    with pytest.raises(ValueError, match=r"Expected scalar shape for x:0, saw shape: \(\?,\)\."):
        tf.assert_scalar(x)
    with pytest.raises(ValueError, match=r"type=<dtype: 'float64'>, must be of the same type "
                                         r"\(<dtype: 'float32'>\) as x:0\."):
        tf.assert_same_float_dtype([x, tf.constant(1.0, tf.float64)])
    with pytest.raises(ValueError, match="Expected floating point type"):
        tf.assert_same_float_dtype([tf.constant([1])])
    with pytest.raises(TypeError, match='"proper" iterable.  Found: <class \'str\'>'):
        tf.assert_proper_iterable("abc")
    with pytest.raises(TypeError, match="to be iterable"):
        tf.assert_proper_iterable(3)
    tf.assert_proper_iterable([1, 2])
    assert tf.assert_same_float_dtype([x]) == tf.float32
    assert tf.assert_same_float_dtype() == tf.float32
    scalar = tf.constant(2.0)
    assert tf.assert_scalar(scalar) is scalar
    for passing in (tf.assert_rank(x, 1), tf.assert_rank_in(x, (1, 2)),
                    tf.assert_integer(tf.constant([1])), tf.assert_type(x, tf.float32)):
        assert _run(passing) is None


def test_a_rank_known_at_run_time_only_is_checked_then():
    p = tf.placeholder(tf.float32, name="p")
    check = tf.assert_rank(p, 2)
    assert _run(check, {p: np.zeros((2, 2))}) is None
    with pytest.raises(InvalidArgumentError, match=r"\[Tensor p:0 must have rank 2\] "
                                                   r"\[Received shape: \] \[3\]"):
        _run(check, {p: np.zeros(3)})
    with pytest.raises(InvalidArgumentError, match="must have rank at least 2"):
        _run(tf.assert_rank_at_least(p, 2), {p: np.zeros(3)})
    with pytest.raises(InvalidArgumentError, match=r"must have rank in \(0, 2\)"):
        _run(tf.assert_rank_in(p, [0, 2]), {p: np.zeros(3)})


def test_an_assertion_guards_what_depends_on_it():
    x = tf.placeholder(tf.float32, [None])
    with tf.control_dependencies([tf.assert_positive(x)]):
        root = tf.sqrt(x)
    np.testing.assert_allclose(_run(root, {x: [4.0, 9.0]}), [2.0, 3.0])
    with pytest.raises(InvalidArgumentError, match="Condition x > 0"):
        _run(root, {x: [4.0, -1.0]})


def test_check_numerics_as_tf():
    x = tf.placeholder(tf.float32, [None])
    checked = tf.check_numerics(x * 2, "bad x")
    np.testing.assert_allclose(_run(checked, {x: [1, 2]}), [2, 4])
    # TF's kernel: "<message> : Tensor had NaN values" (Inf, Inf and NaN)
    for values, found in [([1, np.nan], "NaN"), ([np.inf, 1], "Inf"),
                          ([np.nan, -np.inf], "Inf and NaN")]:
        with pytest.raises(InvalidArgumentError, match=f"bad x : Tensor had {found} values"):
            _run(checked, {x: values})
    with pytest.raises(TypeError, match="check_numerics"):
        tf.check_numerics(tf.constant([1]), "ints")
    grad = tf.gradients(tf.reduce_sum(checked * checked), x)[0]
    np.testing.assert_allclose(_run(grad, {x: [1, 2]}), [8, 16])  # d(4 x^2)/dx
    check_gradients(lambda v: tf.check_numerics(v * v, "square"), [(3, 4)])


def test_add_check_numerics_ops_names_the_tensor():
    x = tf.placeholder(tf.float32, [2], name="x")
    root = tf.sqrt(x, name="root")
    checks = tf.add_check_numerics_ops()
    with tf.Session() as sess:
        sess.run([root, checks], {x: [4.0, 9.0]})
        with pytest.raises(InvalidArgumentError, match="root:0 : Tensor had NaN values"):
            sess.run([root, checks], {x: [4.0, -1.0]})


def test_debugging_module_names():
    assert tf.debugging.assert_equal is tf.assert_equal
    assert tf.debugging.check_numerics is tf.check_numerics
    assert tf.debugging.is_non_decreasing is tf.math.is_non_decreasing
    with pytest.raises(AttributeError, match="not supported by TinyFlow"):
        tf.debugging.assert_shapes  # noqa: B018


def _printed(*inputs, **kwargs):
    stream = io.StringIO()
    _run(tf.print(*inputs, output_stream=stream, **kwargs))
    return stream.getvalue()


def test_print_lays_out_values_as_tf():
    # each text from real TF's tf.print to sys.stdout
    assert _printed("hi", tf.range(10), 5) == "hi [0 1 2 ... 7 8 9] 5\n"
    assert _printed(tf.reshape(tf.range(24), [2, 3, 4])) == (
        "[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n"
        "  [20 21 22 23]]]\n")
    assert _printed(tf.reshape(tf.range(24.0), [4, 6]), summarize=2) == (
        "[[0 1 ... 4 5]\n [6 7 ... 10 11]\n [12 13 ... 16 17]\n [18 19 ... 22 23]]\n")
    assert _printed(tf.constant(1.5), tf.constant([True, False]), sep="|", end="!\n") == (
        "1.5|[1 0]!\n")
    assert _printed(tf.constant([0.1, 1e-8, 123456789.0]), tf.constant(2.5, tf.float64)) == (
        "[0.1 1e-08 123456792] 2.5\n")
    assert _printed(tf.range(10), summarize=-1) == "[0 1 2 3 4 5 6 7 8 9]\n"
    assert _printed(tf.zeros([0, 3])) == "[]\n"
    assert _printed(tf.reshape(tf.range(100), [10, 10]), summarize=2) == (
        "[[0 1 ... 8 9]\n [10 11 ... 18 19]\n ...\n [80 81 ... 88 89]\n [90 91 ... 98 99]]\n")
    assert _printed(tf.reshape(tf.range(64), [4, 4, 4]), summarize=1) == (
        "[[[0 ... 3]\n  ...\n  [12 ... 15]]\n\n ...\n\n [[48 ... 51]\n  ...\n  [60 ... 63]]]\n")
    assert _printed([1, tf.constant(2)], {"a": tf.constant([1.0])}) == "[1, 2] {'a': [1]}\n"
    # string tensors: real TF quotes and C-escapes each (2.21 leaves the UTF-8 of "é" as it
    # is; TF 1.15's str_util::CEscape writes its bytes in octal)
    assert _printed(tf.constant("h\ni"), tf.constant(["a", "b\xe9"])) == (
        '"h\\ni" ["a" "b\\303\\251"]\n')


def test_print_to_stderr_by_default_and_as_a_dependency(capsys):
    x = tf.placeholder(tf.float32, [2])
    with tf.control_dependencies([tf.print("x is", x)]):
        y = x * 2
    np.testing.assert_allclose(_run(y, {x: [1, 2]}), [2, 4])
    assert capsys.readouterr().err.endswith("x is [1 2]\n")
    with pytest.raises(ValueError, match="output_stream"):
        tf.print(x, output_stream="stdout")
    assert tf.print is not print and tf.Print is not tf.print
