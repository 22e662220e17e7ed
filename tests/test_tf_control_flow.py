"""tf.cond, tf.Print, tf.py_func and the scatter ops against TensorFlow 1.15's semantics:
values and gradients against PyTorch autograd and numpy, memory planning on and off."""
import collections

import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.frontend.control_flow_ops import summarize_value

pytestmark = pytest.mark.usefixtures("fresh_graph")


# -- tf.cond -----------------------------------------------------------------------------------
@pytest.mark.parametrize("taken", [True, False])
def test_cond_values_and_gradients(plan_memory, taken):
    rng = np.random.default_rng(0)
    xv, wv = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    pred = tf.placeholder(tf.bool, shape=[])
    x = tf.placeholder(tf.float32, shape=[3, 4])
    w = tf.Variable(wv.astype(np.float32))
    y = tf.cond(pred, lambda: tf.tanh(tf.matmul(x, w)), lambda: tf.exp(x[:, :2]) * 3.0)
    loss = tf.reduce_sum(y * y)
    grads = tf.gradients(loss, [x, w])
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        out, (gx, gw) = sess.run([y, grads], {pred: taken, x: xv})
    xt = torch.tensor(xv, requires_grad=True)
    wt = torch.tensor(wv, requires_grad=True)
    yt = torch.tanh(xt @ wt) if taken else torch.exp(xt[:, :2]) * 3.0
    (yt * yt).sum().backward()
    np.testing.assert_allclose(out, yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gx, xt.grad.numpy(), rtol=1e-4, atol=1e-5)
    # the branch not taken sends no gradient: w's is zero when the exp branch runs
    expected_gw = wt.grad.numpy() if wt.grad is not None else np.zeros_like(wv)
    np.testing.assert_allclose(gw, expected_gw, rtol=1e-4, atol=1e-5)


def test_cond_structures_and_old_keywords(plan_memory):
    pred = tf.placeholder(tf.bool, shape=[])
    x = tf.placeholder(tf.float32, shape=[2])
    Pair = collections.namedtuple("Pair", "a b")
    out = tf.cond(pred, lambda: {"s": x * 2, "p": Pair(x + 1, 7)},
                  lambda: {"s": x * 3, "p": Pair(x - 1, 9)})
    single = tf.cond(pred, fn1=lambda: [x], fn2=lambda: [x * 0])  # unpacked (strict=False)
    strict = tf.cond(pred, lambda: [x], lambda: [-x], strict=True)
    assert isinstance(out["p"], Pair) and isinstance(strict, list)
    assert isinstance(single, tf.Symbol)
    with tf.Session(plan_memory=plan_memory) as sess:
        for taken in (True, False):
            got = sess.run([out, single, strict], {pred: taken, x: [1.0, 2.0]})
            value, one, listed = got
            np.testing.assert_array_equal(value["s"], [2.0, 4.0] if taken else [3.0, 6.0])
            np.testing.assert_array_equal(value["p"].a, [2.0, 3.0] if taken else [0.0, 1.0])
            assert value["p"].b == (7 if taken else 9) and value["p"].b.dtype == np.int32
            np.testing.assert_array_equal(one, [1.0, 2.0] if taken else [0.0, 0.0])
            np.testing.assert_array_equal(listed[0], [1.0, 2.0] if taken else [-1.0, -2.0])


def test_cond_python_bool_calls_only_the_chosen_branch():
    calls = []
    x = tf.constant(2.0)
    y = tf.cond(True, lambda: calls.append("t") or x * 3, lambda: calls.append("f") or x)
    z = tf.cond(np.bool_(False), lambda: calls.append("t") or x, lambda: x - 1)
    assert calls == ["t"]
    with tf.Session() as sess:
        assert sess.run([y, z]) == [6.0, 1.0]


def test_cond_names_and_scalar_outputs():
    pred = tf.placeholder(tf.bool, shape=[])
    y = tf.cond(pred, lambda: tf.constant(1.0), lambda: tf.constant(2.0), name="choose")
    assert y.name.startswith("choose/") and y.shape == tf.TensorShape([])
    with tf.Session() as sess:
        assert sess.run(y, {pred: True}) == 1.0 and sess.run(y, {pred: False}) == 2.0


def test_cond_errors():
    pred = tf.placeholder(tf.bool, shape=[])
    x = tf.placeholder(tf.float32, shape=[2])
    with pytest.raises(ValueError, match=r"structure.*\[tensor, tensor\] from true_fn and "
                                         r"\(tensor, tensor\) from false_fn"):
        tf.cond(pred, lambda: [x, x], lambda: (x, x))
    with pytest.raises(ValueError, match=r"\{'a': tensor\} from true_fn and \{'b': tensor\}"):
        tf.cond(pred, lambda: {"a": x}, lambda: {"b": x})
    with pytest.raises(ValueError, match="must have the same type: float32, int32"):
        tf.cond(pred, lambda: x, lambda: tf.constant([1, 2]))
    with pytest.raises(ValueError, match="at least one result"):
        tf.cond(pred, list, list)
    with pytest.raises(ValueError, match="must be a scalar .*got shape"):
        tf.cond(tf.placeholder(tf.bool, shape=[2]), lambda: x, lambda: x)
    with pytest.raises(TypeError, match="pred must be a bool tensor, got float32"):
        tf.cond(tf.constant(1.0), lambda: x, lambda: x)
    with pytest.raises(TypeError, match="true_fn must be callable"):
        tf.cond(pred, x, lambda: x)
    with pytest.raises(TypeError, match="true_fn and fn1 may not be set simultaneously"):
        tf.cond(pred, lambda: x, lambda: x, fn1=lambda: x)
    with pytest.raises(TypeError, match="false_fn argument required"):
        tf.cond(pred, lambda: x)


def test_cond_runs_only_the_taken_branch_of_one_that_writes_a_variable(plan_memory):
    pred = tf.placeholder(tf.bool, shape=[])
    x = tf.placeholder(tf.float32, shape=[2])
    v = tf.Variable(tf.zeros([2]))
    w = tf.Variable(tf.zeros([2]))

    def add_to_v():  # the op need not be returned: a control dependency runs it
        with tf.control_dependencies([tf.assign_add(v, x)]):
            return tf.identity(x * 2.0)
    out = tf.cond(pred, add_to_v, lambda: tf.scatter_update(w, [1], [5.0]) + x)
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    np.testing.assert_array_equal(sess.run(out, {pred: True, x: [1.0, 2.0]}), [2.0, 4.0])
    np.testing.assert_array_equal(sess.run(out, {pred: True, x: [1.0, 2.0]}), [2.0, 4.0])
    np.testing.assert_array_equal(sess.run(v), [2.0, 4.0])  # twice; w never written
    np.testing.assert_array_equal(sess.run(w), [0.0, 0.0])
    np.testing.assert_array_equal(sess.run(out, {pred: False, x: [1.0, 2.0]}), [1.0, 7.0])
    np.testing.assert_array_equal(sess.run(v), [2.0, 4.0])  # v left alone this time
    np.testing.assert_array_equal(sess.run(w), [0.0, 5.0])


def test_cond_runs_only_the_taken_branch_of_one_running_python(plan_memory):
    calls = []

    def record(value):
        calls.append(float(value))
        return value * 10
    pred = tf.placeholder(tf.bool, shape=[])
    x = tf.placeholder(tf.float32, shape=[])
    out = tf.cond(pred, lambda: _shaped(tf.py_func(record, [x], tf.float32)), lambda: x - 1.0)
    sess = tf.Session(plan_memory=plan_memory)
    assert sess.run(out, {pred: False, x: 3.0}) == 2.0 and calls == []
    assert sess.run(out, {pred: True, x: 3.0}) == 30.0 and calls == [3.0]


def test_cond_static_shapes_are_tensorflows_merge():
    # TF 1.15's cond: each output's static shape its Merge's (recorded from real TF), each run
    # the taken branch's shape
    pred, x = tf.placeholder(tf.bool, [], name="p"), tf.placeholder(tf.float32, [None, 3])
    a, b = tf.zeros([2, 3]), tf.zeros([4, 3])
    outs = [tf.cond(pred, lambda: a, lambda: b),
            tf.cond(pred, lambda: tf.zeros([2, 3]), lambda: tf.zeros([2])),
            tf.cond(pred, lambda: x, lambda: tf.zeros([5, 3])),
            *tf.cond(pred, lambda: (a, tf.zeros([1])), lambda: (tf.ones([2, 3]), tf.zeros([7]))),
            tf.cond(pred, lambda: x[:, :2], lambda: x),
            tf.cond(pred, lambda: tf.reshape(x, [-1]), lambda: x[0])]
    assert [str(t.get_shape()) for t in outs] == [
        "(?, 3)", "<unknown>", "(?, 3)", "(2, 3)", "(?,)", "(?, ?)", "(?,)"]
    picked = [outs[i] for i in (0, 2, 5, 6)]
    with tf.Session() as sess:
        feed = {x: np.ones((6, 3))}
        assert [v.shape for v in sess.run(picked, {pred: True, **feed})] == [
            (2, 3), (6, 3), (6, 2), (18,)]
        assert [v.shape for v in sess.run(picked, {pred: False, **feed})] == [
            (4, 3), (5, 3), (6, 3), (3,)]
        assert sess.run(outs[1], {pred: True}).shape == (2, 3)
        assert sess.run(outs[1], {pred: False}).shape == (2,)
        total = tf.reduce_sum(outs[0]) + tf.reduce_sum(outs[5])
        assert [sess.run(total, {pred: v, **feed}) for v in (True, False)] == [12.0, 18.0]


def test_cond_branches_of_two_shapes_and_their_gradients():
    pred, x = tf.placeholder(tf.bool, []), tf.placeholder(tf.float32, [None, 3])
    w = tf.Variable(np.arange(3, dtype=np.float32))
    out = tf.cond(pred, lambda: x[:2] * w, lambda: tf.concat([x, x], 0) * w * 2.0)
    loss = tf.reduce_sum(out * out)
    grads = tf.gradients(loss, [x, w])
    v = tf.Variable(0.0)
    written = tf.cond(pred, lambda: tf.assign_add(v, 1.0) * tf.ones([2]), lambda: tf.zeros([3]))
    xs = np.arange(12, dtype=np.float32).reshape(4, 3)
    # real TF's values (tf.compat.v1, graph mode), the shapes each branch gives
    expected = {True: (133.0, [[0, 2, 16], [0, 8, 40], [0, 0, 0], [0, 0, 0]], [0, 34, 116],
                       (2, 3), [1.0, 1.0]),
                False: (8176.0, [[0, 16, 128], [0, 64, 320], [0, 112, 512], [0, 160, 704]],
                        [0, 2656, 6848], (8, 3), [0.0, 0.0, 0.0])}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for taken, (want_loss, want_dx, want_dw, shape, want_written) in expected.items():
            got, got_loss, dx, dw = sess.run([out, loss] + grads, {pred: taken, x: xs})
            assert got.shape == shape and got_loss == want_loss
            assert dx.tolist() == want_dx and dw.tolist() == want_dw
            assert sess.run(written, {pred: taken}).tolist() == want_written
        assert sess.run(v) == 1.0  # the write ran once, in the run taking its branch


def _shaped(tensor):
    tensor.set_shape([])
    return tensor


# -- tf.Print ----------------------------------------------------------------------------------
def test_summarize_value_is_tensorflows():
    # TensorFlow 1.15's Tensor::SummarizeValue (PrintOneDim) on these values
    assert summarize_value(np.array([[1, 2], [3, 4]])) == "[1 2][3...]..."
    assert summarize_value(np.array([[1, 2], [3, 4]]), 4) == "[1 2][3 4]"
    assert summarize_value(np.arange(5), 3) == "0 1 2..."
    assert summarize_value(np.arange(5), -1) == "0 1 2 3 4"
    assert summarize_value(np.arange(8).reshape(2, 2, 2), 3) == "[[0 1][2...]]..."
    assert summarize_value(np.arange(6).reshape(3, 2), 2) == "[0 1]..."
    assert summarize_value(np.array(7)) == "7"
    assert summarize_value(np.zeros((0, 3))) == ""
    floats = np.array([1 / 3, 0.1, 2.5, -np.inf], np.float32)
    assert summarize_value(floats, 4) == "0.333333343 0.1 2.5 -inf"
    assert summarize_value(np.array([1 / 3, 1e20]), 2) == "0.33333333333333331 1e+20"
    assert summarize_value(np.array([True, False])) == "1 0"


def test_print_fetched_prints_as_tensorflow(capsys, plan_memory):
    x = tf.placeholder(tf.float32, shape=[4])
    table = tf.constant([[1, 2], [3, 4]])
    printed = tf.Print(x, [x, table], message="values: ", first_n=2)
    quiet = tf.Print(x * 2, [x], summarize=-1)
    with tf.Session(plan_memory=plan_memory) as sess:
        for step in range(3):
            out = sess.run(printed, {x: [step, 0.5, 1, 2]})
            np.testing.assert_array_equal(out, [step, 0.5, 1, 2])
        np.testing.assert_array_equal(sess.run(quiet, {x: [1, 2, 3, 4]}), [2, 4, 6, 8])
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == ["values: [0 0.5 1...][[1 2][3...]...]",
                                         "values: [1 0.5 1...][[1 2][3...]...]",
                                         "[1 2 3 4]"]
    assert printed.name == "Print:0" and quiet.dtype == tf.float32


def test_print_writes_strings_escaped_as_tensorflow(capsys):
    x = tf.constant([1, 2])
    words = tf.constant(["a\nb", "q'\"\\", "\xe9t\x01"])
    with tf.Session() as sess:
        sess.run(tf.Print(x, [words, "lit"], message="S: "))
    # real TF: no b'' around a string, and C escapes (TF 1.15's str_util::CEscape writes every
    # byte from 0x80 in octal too; 2.21 leaves UTF-8 as it is: "\303\251" there is "é")
    assert capsys.readouterr().err.splitlines() == [
        "S: [a\\nb q\\'\\\"\\\\ \\303\\251t\\001][lit]"]


def test_print_inside_the_graph_and_its_gradient(capsys, plan_memory):
    xv = np.float32([[0.5, 1.0, -2.0], [0.25, -1.5, 0.75]])  # sum -1: printed "-1"
    x = tf.placeholder(tf.float32, shape=[2, 3])
    w = tf.Variable(tf.ones([3]))
    h = tf.Print(x * w, [tf.reduce_sum(x)], "sum: ")
    loss = tf.reduce_sum(tf.tanh(h))
    gx, gw = tf.gradients(loss, [x, w])
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        value, gx_value, gw_value = sess.run([loss, gx, gw], {x: xv})
        sess.run([h, loss], {x: xv})  # fetched and read: printed once a run
    xt = torch.tensor(xv, requires_grad=True)
    wt = torch.ones(3, requires_grad=True)
    lt = torch.tanh(xt * wt).sum()
    lt.backward()
    np.testing.assert_allclose(value, lt.item(), rtol=1e-5)
    np.testing.assert_allclose(gx_value, xt.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(gw_value, wt.grad.numpy(), rtol=1e-5)
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["sum: [-1]"] * 2
    assert tf.gradients(loss, tf.reduce_sum(x)) == [None]  # nothing flows to the data


def test_print_bad_data():
    x = tf.constant([1.0])
    with pytest.raises(TypeError, match="data must be a list of tensors"):
        tf.Print(x, x)


# -- tf.py_func --------------------------------------------------------------------------------
def test_py_func_fetched(plan_memory):
    calls = []

    def both(a, b):
        calls.append((a.dtype, b.shape))
        return np.sinh(a), (a * b).astype(np.int64)
    x = tf.placeholder(tf.float32, shape=[3])
    n = tf.placeholder(tf.int32, shape=[])
    single = tf.py_func(np.sinh, [x], tf.float32)
    pair = tf.py_func(both, [x, n], [tf.float32, tf.int64], name="both")
    chained = tf.py_func(lambda v: v + 1, [pair[1]], tf.int64)
    assert isinstance(pair, list) and pair[1].dtype == tf.int64 and pair[0].name == "both:0"
    feed = {x: [0.5, 1.0, 2.0], n: 3}
    with tf.Session(plan_memory=plan_memory) as sess:
        s, (p0, p1), c = sess.run([single, pair, chained], feed)
    np.testing.assert_allclose(s, np.sinh(np.float32([0.5, 1.0, 2.0])))
    np.testing.assert_allclose(p0, s)
    assert p1.tolist() == [1, 3, 6] and c.tolist() == [2, 4, 7]
    assert calls == [(np.float32, ())]  # once a run, numpy arrays (0-d for a scalar)
    assert tf.gradients(single, x) == [None]  # TF: not differentiable


def test_numpy_function_and_a_fetched_scalar_is_a_numpy_scalar(plan_memory):
    x = tf.placeholder(tf.float32, shape=[None, 2])
    sums = tf.numpy_function(lambda a: a.sum(axis=1), [x], tf.float32)
    count = tf.py_func(lambda a: np.int64(a.shape[0]), [x], tf.int64)
    assert sums.dtype == tf.float32 and sums.get_shape().ndims is None  # TF's: unknown
    with tf.Session(plan_memory=plan_memory) as sess:
        got_sums, got_count = sess.run([sums, count], {x: [[1.0, 2.0], [3.0, 4.0]]})
    np.testing.assert_array_equal(got_sums, [3.0, 7.0])
    # real TF 1.15 fetches a rank-0 py_func result as np.int64(2), not a 0-d array
    assert type(got_count) is np.int64 and got_count == 2


def test_py_func_inside_the_graph(plan_memory):
    x = tf.placeholder(tf.float32, shape=[2, 2])
    y = tf.py_func(lambda a: a @ a, [x], tf.float32)
    y.set_shape([2, 2])  # as TF programs give a py_func's output its shape
    z = tf.reduce_sum(y * x)
    unknown = tf.py_func(lambda a: a, [x], tf.float32)
    xv = np.float32([[1, 2], [3, 4]])
    with tf.Session(plan_memory=plan_memory) as sess:
        np.testing.assert_allclose(sess.run(z, {x: xv}), np.sum((xv @ xv) * xv))
        with pytest.raises(tf.ShapeError, match=r"cannot infer the shape of op 'py_func' .*"
                                                r"fetch it directly"):
            sess.run(unknown * 2, {x: xv})
        wrong = tf.py_func(lambda a: a[0], [x], tf.float32)
        wrong.set_shape([2, 2])
        with pytest.raises(Exception, match=r"output 0 has shape \(2,\), but the graph was "
                                            r"bound with \(2, 2\)"):
            sess.run(wrong + 1, {x: xv})


def test_py_func_string_results_as_tf(plan_memory):
    # recorded from real TF (tensorflow 2.21, tf.compat.v1 with v2 behaviour off: TF 1.15's
    # FuncRegistry._convert): an array of bytes, or a list of str (UTF-8), fetches as an object
    # array of bytes and feeds another py_func; an array of non-ASCII str is an
    # InvalidArgumentError (UnicodeEncodeError); a number array is "... but expects string"
    x = tf.placeholder(tf.int64, [None, 1])
    as_bytes = tf.py_func(lambda a: a.astype(np.bytes_), [x], tf.string)
    from_list = tf.py_func(lambda a: ([f"é{v}" for v in a.ravel()],), [x], [tf.string])[0]
    lengths = tf.py_func(lambda b: np.array([len(v) for v in b.ravel()], np.int64), [as_bytes],
                         tf.int64)
    unicode_array = tf.py_func(lambda a: np.array([[f"é{v}" for v in r] for r in a]), [x],
                               tf.string)
    numbers = tf.py_func(lambda a: a, [x], tf.string)
    assert as_bytes.dtype == tf.string and from_list.name == "PyFunc_1:0"  # TF's names
    with tf.Session(plan_memory=plan_memory) as sess:
        got = sess.run(as_bytes, {x: [[1], [0]]})
        assert got.dtype == object and got.tolist() == [[b"1"], [b"0"]]
        assert sess.run(from_list, {x: [[1], [20]]}).tolist() == [b"\xc3\xa91", b"\xc3\xa920"]
        assert sess.run(lengths, {x: [[1], [20]]}).tolist() == [1, 2]
        with pytest.raises(tf.errors.InvalidArgumentError, match="UnicodeEncodeError"):
            sess.run(unicode_array, {x: [[1]]})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="0-th value returned by py_func '.*' is int64, but expects "
                                 "string"):
            sess.run(numbers, {x: [[1]]})


def test_py_func_errors():
    x = tf.placeholder(tf.float32, shape=[2])
    as_double = tf.py_func(lambda a: a.astype(np.float64), [x], tf.float32)
    as_two = tf.py_func(lambda a: (a, a), [x], tf.float32)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="0-th value returned by py_func 'PyFunc' is float64, but "
                                 "expects float32"):
            sess.run(as_double, {x: [1, 2]})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="returned 2 values, but Tout has 1 dtypes"):
            sess.run(as_two, {x: [1, 2]})
    with pytest.raises(ValueError, match="Tout=\\[\\].*not supported by TinyFlow"):
        tf.py_func(print, [x], [])
    with pytest.raises(TypeError, match="func must be callable"):
        tf.py_func(3, [x], tf.float32)


# -- scatter_update / scatter_add / scatter_sub --------------------------------------------------
@pytest.mark.parametrize("op", ["scatter_update", "scatter_add", "scatter_sub"])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_scatter_ops_against_numpy(plan_memory, op, index_dtype):
    rng = np.random.default_rng(2)
    start = rng.standard_normal((5, 2, 3)).astype(np.float32)
    cases = [(np.array([3, 0], index_dtype), rng.standard_normal((2, 2, 3))),
             (np.array([[4], [1]], index_dtype), rng.standard_normal((2, 1, 2, 3))),
             (np.array(2, index_dtype), rng.standard_normal((2, 3))),
             (np.array([1, 4], index_dtype), np.float32(1.5))]  # a scalar update
    v = tf.Variable(start)
    ops = [getattr(tf, op)(v, tf.constant(i), tf.constant(np.float32(u))) for i, u in cases]
    expected = start.copy()
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for (indices, updates), scatter in zip(cases, ops):
            rows = np.broadcast_to(np.float32(updates), indices.shape + start.shape[1:])
            flat = rows.reshape((-1,) + start.shape[1:])
            for i, row in zip(indices.ravel(), flat):
                expected[i] = {"scatter_update": row, "scatter_add": expected[i] + row,
                               "scatter_sub": expected[i] - row}[op]
            np.testing.assert_allclose(sess.run(scatter), expected, rtol=1e-6)
            np.testing.assert_allclose(sess.run(v), expected, rtol=1e-6)


def test_scatter_add_sums_repeated_indices(plan_memory):
    v = tf.Variable(tf.zeros([3], dtype=tf.int64))
    add = tf.scatter_add(v, [2, 0, 2, 2], tf.constant([1, 2, 3, 4], dtype=tf.int64))
    sub = tf.scatter_sub(v, [1, 1], tf.constant([5, 6], dtype=tf.int64))
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(add).tolist() == [2, 0, 8]
        assert sess.run(sub).tolist() == [2, -11, 8]
        assert sess.run(add).tolist() == [4, -11, 16]  # every run adds again


def test_scatter_reads_before_the_write(plan_memory):
    # a run reading the variable beside the write sees the value before it (OrderMutation)
    v = tf.Variable([1.0, 2.0, 3.0])
    before = tf.identity(v) * 1.0
    write = tf.scatter_update(v, [1], [9.0])
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        old, new = sess.run([before, write])
        assert old.tolist() == [1.0, 2.0, 3.0] and new.tolist() == [1.0, 9.0, 3.0]
        assert sess.run(v).tolist() == [1.0, 9.0, 3.0]
    assert write.name == "ScatterUpdate:0"
    assert tf.gradients(write, v) == [None]


def test_scatter_errors():
    v = tf.Variable(tf.zeros([4, 2]))
    with pytest.raises(ValueError, match=r"op 'scatter_update' .*updates must have "
                                         r"shape indices.shape \+ ref.shape\[1:\] = "
                                         r"\(2, 2\).*got \(2, 3\)"):
        tf.scatter_update(v, [0, 1], tf.zeros([2, 3]))  # as TF: when the op is made
    with pytest.raises(ValueError, match=r"updates must have .*got \(\?, 3\)"):
        tf.scatter_update(v, [0, 1], tf.placeholder(tf.float32, [None, 3]))  # no ? fits
    updates = tf.placeholder(tf.float32)  # shape unknown until fed: found at run
    bad_shape = tf.scatter_update(v, [0, 1], updates)
    with pytest.raises(Exception, match="indices must be int32 or int64, got float32"):
        tf.scatter_add(v, tf.constant([0.0]), tf.zeros([1, 2]))
    with pytest.raises(Exception, match="updates must have the variable's dtype float32, got "
                                        "int32"):
        tf.scatter_add(v, [0], tf.constant([[1, 2]]))
    with pytest.raises(TypeError, match="tf.scatter_sub writes to a tf.Variable"):
        tf.scatter_sub(tf.zeros([4, 2]), [0], tf.zeros([1, 2]))
    out_of_range = tf.scatter_add(v, [4], tf.zeros([1, 2]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.ShapeError, match=r"op 'scatter_update' .*updates must have "
                                                r"shape indices.shape \+ ref.shape\[1:\] = "
                                                r"\(2, 2\).*got \(2, 3\)"):
            sess.run(bad_shape, {updates: np.zeros((2, 3))})
        with pytest.raises(Exception, match="scatter_add' .*ScatterAdd.*index"):
            sess.run(out_of_range)


def test_count_up_to_stops_at_its_limit_and_leaves_the_count(plan_memory):
    counter = tf.Variable(0, name="counter")
    wide = tf.Variable(tf.constant(5, tf.int64), name="wide")
    up, up_wide = tf.count_up_to(counter, 3), tf.count_up_to(wide, 6)
    assert up.dtype == tf.int32 and up_wide.dtype == tf.int64
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        # real TF 1.15: 0, 1, 2, then OutOfRangeError "Reached limit of 3", the count still 3
        assert [sess.run(up) for _ in range(3)] == [0, 1, 2]
        with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 3"):
            sess.run(up)
        assert sess.run(counter) == 3
        assert sess.run(up_wide) == 5
        with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 6"):
            sess.run(up_wide)
    with pytest.raises(TypeError, match="tf.Variable"):
        tf.count_up_to(tf.constant(0), 3)


def test_cond_branches_returning_operations(plan_memory):
    # TF 1.15: an operation a branch returns stands as its pivot, a bool tensor (True from
    # true_fn, False from false_fn) that runs the operation first; real TF (2.21's
    # tf.compat.v1) printed True, False and v = 1.0 after one run of each
    pred = tf.placeholder(tf.bool, shape=[])
    v = tf.Variable(0.0)
    step = tf.cond(pred, lambda: tf.assign_add(v, 1.0).op, lambda: tf.no_op())
    both = tf.cond(pred, lambda: tf.no_op(), lambda: tf.group(tf.no_op()))
    assert step.dtype == tf.bool and step.shape.ndims == 0
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(step, {pred: True}) and not sess.run(step, {pred: False})
        assert sess.run(v) == 1.0
        assert sess.run(both, {pred: True}) and not sess.run(both, {pred: False})
