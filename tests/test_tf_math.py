"""TF-1 math with real integer and bool tensors: values against numpy / TF 1.15's formulas,
gradients against torch autograd and finite differences, dtype errors, memory planning on and
off, and the seed examples' accuracy idiom."""
import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients
from tinyflow.nnvm import BindError, DTypeError

pytestmark = pytest.mark.usefixtures("fresh_graph")
F64 = torch.float64


def run(plan_memory, fetches, feeds=None):
    with tf.Session(plan_memory=plan_memory) as sess:
        return sess.run(fetches, feeds)


# -- dtypes ----------------------------------------------------------------------------------
def test_constant_infers_tensorflow_dtypes():
    cases = [(1.5, tf.float32), (3, tf.int32), (2 ** 40, tf.int64), (True, tf.bool),
             ([1, 2], tf.int32), ([1.0, 2], tf.float32), (np.arange(3), tf.int64),
             (np.ones(2), tf.float64), (np.float32(1), tf.float32), ([True, False], tf.bool),
             ("s", tf.string)]
    for value, dtype in cases:
        assert tf.constant(value).dtype == dtype, value
    assert tf.constant(3, dtype=tf.float32).dtype == tf.float32


def test_hello_tensorflow_string_constant():
    hello = tf.constant("Hello, TensorFlow!")
    with tf.Session() as sess:
        assert sess.run(hello) == b"Hello, TensorFlow!"
        both = sess.run([hello, tf.constant(2) * 3, tf.constant([b"a", "b"])])
    assert both[0] == b"Hello, TensorFlow!" and both[1] == 6
    assert list(both[2]) == [b"a", b"b"]
    with pytest.raises(BindError, match="string"):
        tf.Session().run(tf.reshape(hello, [1]))


def test_cast_and_to_functions(plan_memory):
    x = tf.placeholder(tf.float32, shape=(5,))
    value = np.array([-1.7, -0.2, 0.0, 0.6, 2.9], np.float32)
    outs = [tf.cast(x, tf.int32), tf.to_int64(x), tf.to_double(x), tf.cast(x, tf.bool),
            tf.to_float(tf.cast(x, tf.bool)), tf.to_int32(x)]
    got = run(plan_memory, outs, {x: value})
    assert [g.dtype for g in got] == [np.int32, np.int64, np.float64, np.bool_, np.float32,
                                      np.int32]
    np.testing.assert_array_equal(got[0], [-1, 0, 0, 0, 2])  # toward zero, as TF
    np.testing.assert_array_equal(got[2], value.astype(np.float64))
    np.testing.assert_array_equal(got[3], value != 0)
    np.testing.assert_array_equal(got[4], (value != 0).astype(np.float32))


def test_argmax_argmin_give_int64(plan_memory):
    x = tf.placeholder(tf.float32, shape=(3, 4))
    value = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    outs = [tf.argmax(x, 1), tf.argmin(x, 0), tf.arg_max(x, 0), tf.arg_min(x, 1),
            tf.argmax(x, axis=1, output_type=tf.int32), tf.argmax(x, dimension=1)]
    got = run(plan_memory, outs, {x: value})
    assert [g.dtype for g in got] == [np.int64] * 4 + [np.int32, np.int64]
    for g, want in zip(got, [value.argmax(1), value.argmin(0), value.argmax(0), value.argmin(1),
                             value.argmax(1), value.argmax(1)]):
        np.testing.assert_array_equal(g, want)


def test_comparisons_and_logic_give_bool(plan_memory):
    a, b = tf.placeholder(tf.int32, shape=(2, 3)), tf.placeholder(tf.int32, shape=(3,))
    av = np.array([[0, 1, 2], [3, -1, 2]], np.int32)
    bv = np.array([0, 2, 2], np.int32)
    ops = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less,
           "less_equal": np.less_equal, "greater": np.greater,
           "greater_equal": np.greater_equal}
    got = run(plan_memory, [getattr(tf, n)(a, b) for n in ops], {a: av, b: bv})
    for (name, function), value in zip(ops.items(), got):
        assert value.dtype == np.bool_, name
        np.testing.assert_array_equal(value, function(av, bv), err_msg=name)
    p, q = tf.placeholder(tf.bool, shape=(4,)), tf.placeholder(tf.bool, shape=(4,))
    pv, qv = np.array([True, True, False, False]), np.array([True, False, True, False])
    outs = [tf.logical_and(p, q), tf.logical_or(p, q), tf.logical_not(p),
            tf.logical_xor(p, q), p & q, p | q, p ^ q, ~p, tf.logical_and(p, True)]
    got = run(plan_memory, outs, {p: pv, q: qv})
    for value, want in zip(got, [pv & qv, pv | qv, ~pv, pv ^ qv, pv & qv, pv | qv, pv ^ qv,
                                 ~pv, pv]):
        np.testing.assert_array_equal(value, want)


def test_reduce_any_all(plan_memory):
    p = tf.placeholder(tf.bool, shape=(2, 3))
    pv = np.array([[True, False, True], [False, False, False]])
    got = run(plan_memory, [tf.reduce_any(p), tf.reduce_any(p, 1), tf.reduce_all(p, 0),
                            tf.reduce_all(p, axis=1, keep_dims=True)], {p: pv})
    for value, want in zip(got, [pv.any(), pv.any(1), pv.all(0), pv.all(1, keepdims=True)]):
        np.testing.assert_array_equal(value, want)


# -- integer arithmetic ------------------------------------------------------------------------
def test_integer_arithmetic_follows_tensorflow(plan_memory):
    x, y = tf.placeholder(tf.int32, shape=(4,)), tf.placeholder(tf.int32, shape=(4,))
    xv, yv = np.array([7, -7, 7, -7], np.int32), np.array([2, 2, -2, -2], np.int32)
    outs = {"x*2": x * 2, "2-x": 2 - x, "x+y": x + y, "square": tf.square(x),
            "x**2": x ** 2, "x/y": x / y, "divide": tf.divide(x, y), "truediv": tf.truediv(x, y),
            "x/2": x / 2, "floordiv": tf.floordiv(x, y), "x//y": x // y, "mod": tf.mod(x, y),
            "x%y": x % y, "div": tf.div(x, y), "maximum": tf.maximum(x, 0),
            "minimum": tf.minimum(x, y), "abs": tf.abs(x), "neg": -x, "sign": tf.sign(x),
            "sum": tf.reduce_sum(x), "mean": tf.reduce_mean(x), "prod": tf.reduce_prod(y),
            "max": tf.reduce_max(x), "min": tf.reduce_min(x), "add_n": tf.add_n([x, y, x]),
            "clip": tf.clip_by_value(x, -3, 3), "where": tf.where(x > 0, x, y)}
    got = dict(zip(outs, run(plan_memory, list(outs.values()), {x: xv, y: yv})))
    want = {"x*2": xv * 2, "2-x": 2 - xv, "x+y": xv + yv, "square": xv * xv, "x**2": xv ** 2,
            "x/y": xv / yv, "divide": xv / yv, "truediv": xv / yv, "x/2": xv / 2,
            "floordiv": xv // yv, "x//y": xv // yv, "mod": xv % yv, "x%y": xv % yv,
            "div": xv // yv, "maximum": np.maximum(xv, 0), "minimum": np.minimum(xv, yv),
            "abs": np.abs(xv), "neg": -xv, "sign": np.sign(xv), "sum": xv.sum(),
            "mean": np.int32(0), "prod": np.prod(yv), "max": xv.max(), "min": xv.min(),
            "add_n": 2 * xv + yv, "clip": np.clip(xv, -3, 3), "where": np.where(xv > 0, xv, yv)}
    for name, value in got.items():
        expected = np.asarray(want[name])
        kind = "f" if name in ("x/y", "divide", "truediv", "x/2") else "i"
        assert value.dtype.kind == kind, f"{name}: {value.dtype}"
        np.testing.assert_array_equal(value, expected, err_msg=name)
    assert got["x/y"].dtype == np.float64  # TF's truediv table: int32 -> float64


def test_truediv_table_and_exact_int_division(plan_memory):
    small = tf.placeholder(tf.int16, shape=(2,))
    big = tf.placeholder(tf.int64, shape=(2,))
    bv = np.array([2 ** 53 - 1, 3], np.int64)
    got = run(plan_memory, [small / small, big / 1, tf.reduce_mean(big)],
              {small: [3, 4], big: bv})
    assert got[0].dtype == np.float32 and got[1].dtype == np.float64
    assert got[1][0] == float(2 ** 53 - 1)  # divided in float64, not torch's default float32
    assert got[2] == (2 ** 53 + 2) // 2


def test_integer_mean_truncates_toward_zero(plan_memory):
    x = tf.placeholder(tf.int32, shape=(2, 2))
    got = run(plan_memory, tf.reduce_mean(x, axis=1), {x: [[-1, -2], [1, 2]]})
    np.testing.assert_array_equal(got, [-1, 1])  # TF's integer mean: -3 / 2 = -1


def test_python_numbers_take_the_tensors_dtype(plan_memory):
    i = tf.placeholder(tf.int64, shape=(2,))
    f = tf.placeholder(tf.float64, shape=(2,))
    outs = [tf.add(i, 2), tf.multiply(3, i), tf.maximum(f, 0.5), i * 2, f * 0.5, 1 - f,
            tf.where(tf.less(f, 1), f, 0)]
    got = run(plan_memory, outs, {i: [1, 2], f: [0.25, 2.0]})
    assert [g.dtype for g in got] == [np.int64] * 2 + [np.float64] + [np.int64] + \
        [np.float64] * 3
    np.testing.assert_array_equal(got[0], [3, 4])
    np.testing.assert_array_equal(got[6], [0.25, 0.0])


# -- dtype errors -----------------------------------------------------------------------------
def _raises(build, *words):
    # TF raises where the op is made (the user's line), not when it runs
    with pytest.raises(DTypeError) as info:
        build()
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_mixing_dtypes_is_an_error_naming_op_node_and_dtypes():
    f, i = tf.constant([1.0, 2.0]), tf.constant([1, 2])
    _raises(lambda: tf.add(f, i, name="mixed"), "elemwise_add", "'mixed'", "float32", "int32",
            "test_tf_math.py")
    _raises(lambda: f * i, "elemwise_mul", "float32", "int32")
    _raises(lambda: tf.maximum(i, tf.constant([1, 2], tf.int64)), "maximum", "int32", "int64")
    _raises(lambda: i * 0.5, "__mul_scalar__", "int32", "0.5")
    _raises(lambda: tf.add(i, 0.5), "_constant_like", "int32", "0.5")
    _raises(lambda: tf.exp(i), "exp", "int32")
    _raises(lambda: tf.logical_and(f, f), "logical_and", "float32")
    _raises(lambda: tf.where(f, f, f), "where", "bool", "float32")
    _raises(lambda: tf.reduce_max(tf.equal(i, i)), "reduce_max", "bool")
    _raises(lambda: tf.assign(tf.Variable(i), f), "assign", "int32", "float32")


def test_bind_checks_dtypes_of_graphs_made_elsewhere():
    # nodes made without create_op's check (a loaded graph): InferType catches it at bind
    f, i = tf.constant([1.0, 2.0]), tf.constant([1, 2])
    total = tf.add(f, tf.cast(i, tf.float32), name="mixed")
    total.op.inputs[1] = i.outputs[0]  # rewired by hand, as LoadJSON or a pass might
    with pytest.raises(DTypeError, match="float32 and int32"):
        _ = total.dtype  # the static dtype sees it
    with pytest.raises(DTypeError, match="'mixed'"):
        tf.Session().run(total)


def test_where_shapes_follow_tensorflow_1(plan_memory):
    c = tf.placeholder(tf.bool, shape=(3,))
    x = tf.placeholder(tf.float32, shape=(3, 2))
    cv, xv = np.array([True, False, True]), np.arange(6, dtype=np.float32).reshape(3, 2)
    got = run(plan_memory, tf.where(c, x, -x), {c: cv, x: xv})
    np.testing.assert_array_equal(got, np.where(cv[:, None], xv, -xv))
    with pytest.raises(tf.ShapeError, match="vector of its first"):
        run(plan_memory, tf.where(tf.constant([True, False]), x, x), {x: xv})
    # one argument: the coordinates of the true elements (tests/test_runtime_shapes.py)
    np.testing.assert_array_equal(run(plan_memory, tf.where(c), {c: cv}), [[0], [2]])


# -- float values and gradients ------------------------------------------------------------------
FLOAT_CASES = {  # name: (build, torch twin, shapes, positive)
    "maximum": (tf.maximum, torch.maximum, [(3, 4), (4,)], False),
    "minimum": (tf.minimum, torch.minimum, [(3, 1), (1, 4)], False),
    "mod": (tf.mod, torch.remainder, [(3, 4), (4,)], True),
    "floordiv": (tf.floordiv, lambda a, b: torch.div(a, b, rounding_mode="floor"),
                 [(3, 4), (4,)], True),
    "pow": (tf.pow, torch.pow, [(3, 4), (3, 4)], True),
    "rsqrt": (tf.rsqrt, torch.rsqrt, [(3, 4)], True),
    "log1p": (tf.log1p, torch.log1p, [(3, 4)], True),
    "clip_by_value": (lambda x: tf.clip_by_value(x, -0.5, 0.7),
                      lambda x: torch.clamp(x, -0.5, 0.7), [(3, 4)], False),
    "where": (lambda c, a, b: tf.where(c > 0, a, b), lambda c, a, b: torch.where(c > 0, a, b),
              [(3, 4)] * 3, False),
    "reduce_min": (lambda x: tf.reduce_min(x, axis=[0, 2]), lambda x: x.amin((0, 2)),
                   [(2, 3, 4)], False),
    "reduce_prod": (lambda x: tf.reduce_prod(x, axis=1, keepdims=True),
                    lambda x: x.prod(1, keepdim=True), [(3, 4)], False),
    "reduce_prod-all": (tf.reduce_prod, torch.prod, [(2, 3)], False),
    "cast": (lambda x: tf.cast(x, tf.float64) * 2, lambda x: x * 2, [(3,)], False),
}


@pytest.mark.parametrize("name", list(FLOAT_CASES))
def test_float_values_and_gradients(name, plan_memory):
    build, twin, shapes, positive = FLOAT_CASES[name]
    report = check_gradients(build, shapes, positive=positive, plan_memory=plan_memory,
                             wrt=None if name not in ("where", "floordiv") else
                             ((1, 2) if name == "where" else ()), name=name)
    xs = [torch.tensor(v, dtype=F64, requires_grad=True) for v in report.inputs]
    out = twin(*xs)
    np.testing.assert_allclose(report.outputs[0], out.detach().numpy(), rtol=1e-5, atol=1e-6)
    if not report.symbolic:
        return
    grads = torch.autograd.grad(out, xs, torch.tensor(report.head_grads[0], dtype=F64),
                                allow_unused=True)
    for i, symbolic in report.symbolic.items():
        np.testing.assert_allclose(symbolic, grads[i].numpy(), rtol=1e-4, atol=1e-5,
                                   err_msg=f"{name}: input {i}")


def test_prod_gradient_at_zeros_and_max_ties(plan_memory):
    x = tf.placeholder(tf.float32, shape=(2, 3))
    value = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 5.0]], np.float32)
    (g_prod,) = tf.gradients(tf.reduce_prod(x, 1), [x])
    (g_max,) = tf.gradients(tf.reduce_max(x, 1), [x])
    got_prod, got_max = run(plan_memory, [g_prod, g_max], {x: value})
    np.testing.assert_array_equal(got_prod, [[6, 0, 0], [0, 0, 0]])
    t = torch.tensor(value, requires_grad=True)
    (want,) = torch.autograd.grad(t.prod(1).sum(), t)
    np.testing.assert_array_equal(got_prod, want.numpy())
    # TF shares the gradient among tied maxima
    np.testing.assert_array_equal(got_max, [[0, 0, 1], [0, 0, 1]])
    tie = np.array([[3.0, 3.0, 1.0], [1.0, 1.0, 1.0]], np.float32)
    np.testing.assert_allclose(run(plan_memory, g_max, {x: tie}),
                               [[0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3]], rtol=1e-6)


def test_mean_gradient_divides_by_the_count(plan_memory):
    # g / N exactly, as torch and TF; the seed's g * (1 / N) was one float32 step off
    x = tf.placeholder(tf.float32, shape=(7, 3))
    head = tf.placeholder(tf.float32, shape=(3,))
    (grad,) = tf.gradients(tf.reduce_mean(x, 0), [x], grad_ys=[head])
    heads = np.random.default_rng(1).standard_normal(3).astype(np.float32)
    got = run(plan_memory, grad, {x: np.zeros((7, 3), np.float32), head: heads})
    np.testing.assert_array_equal(got, np.broadcast_to(heads / np.float32(7), (7, 3)))
    t = torch.zeros(7, 3, requires_grad=True)
    (want,) = torch.autograd.grad(t.mean(0), t, torch.tensor(heads))
    np.testing.assert_array_equal(got, want.numpy())


def test_cast_gradient_stops_at_integers():
    x = tf.placeholder(tf.float32, shape=(3,))
    (to_int,) = tf.gradients(tf.reduce_sum(tf.to_float(tf.to_int32(x))), [x])
    (to_double,) = tf.gradients(tf.reduce_sum(tf.to_double(x)), [x])
    assert to_int is None
    np.testing.assert_array_equal(tf.Session().run(to_double, {x: [1, 2, 3]}), [1, 1, 1])


# -- the seed's programs ---------------------------------------------------------------------------
def test_seed_accuracy_idioms(plan_memory):
    # Kept as an extension (TF raises): reduce_mean of bool, and an int64 argmax against a
    # float32 label compared by value.
    y = tf.placeholder(tf.float32, shape=(None, 3))
    y_ = tf.placeholder(tf.float32, shape=(None, 3))
    label = tf.placeholder(tf.float32, shape=(None,))
    correct = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(correct)
    label_accuracy = tf.reduce_mean(tf.equal(tf.argmax(y, 1), label))
    cast_accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    logits = np.eye(3, dtype=np.float32)[[0, 1, 2, 1]]
    labels = np.eye(3, dtype=np.float32)[[0, 1, 1, 1]]
    got = run(plan_memory, [correct, accuracy, label_accuracy, cast_accuracy, tf.reduce_sum(
        correct)], {y: logits, y_: labels, label: [0.0, 1.0, 1.0, 1.0]})
    assert got[0].dtype == np.bool_
    assert got[1].dtype == np.float32 and got[1] == 0.75
    assert got[2] == 0.75 and got[3] == 0.75 and got[4] == 3.0
