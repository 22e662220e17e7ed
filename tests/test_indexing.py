"""Indexing with tensors (issue 25): ``x[i]``, ``x[1:n-1]``, ``tf.strided_slice`` with tensor
bounds, inside loops too, against numpy and PyTorch autograd; index values out of range are
TF's InvalidArgumentError; gather_nd, scatter_nd, tensor_scatter_nd_* and reverse_sequence
against numbers printed by real TensorFlow (the table cases are in op_cases_indexing.py)."""
import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")

VALUES = np.arange(60, dtype=np.float32).reshape(4, 5, 3)
# (label, the index as a function of tensors i and j) -- the same function indexes numpy
FORMS = [("x[i]", lambda x, i, j: x[i]), ("x[:, i]", lambda x, i, j: x[:, i]),
         ("x[i, 1:3]", lambda x, i, j: x[i, 1:3]), ("x[..., j]", lambda x, i, j: x[..., j]),
         ("x[i, j]", lambda x, i, j: x[i, j]), ("x[i, None, ::-1]", lambda x, i, j: x[i, None, ::-1]),
         ("x[1:, i, ::-2]", lambda x, i, j: x[1:, i, ::-2]), ("x[i][j]", lambda x, i, j: x[i][j]),
         ("x[j, ..., i]", lambda x, i, j: x[j, ..., i]), ("x[-1, i]", lambda x, i, j: x[-1, i])]


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
@pytest.mark.parametrize("label, form", FORMS, ids=[f[0] for f in FORMS])
def test_tensor_indices_against_numpy(label, form, dtype, plan_memory):
    x = tf.placeholder(tf.float32, [4, 5, 3])
    i, j = tf.placeholder(dtype, []), tf.placeholder(dtype, [])
    out = form(x, i, j)
    expected_shape = form(VALUES, 0, 0).shape
    assert out.get_shape().as_list() == list(expected_shape), label  # known when built
    sess = tf.Session(plan_memory=plan_memory)
    for iv, jv in ((0, 0), (2, -1), (-3, 1), (-1, -3)):
        np.testing.assert_array_equal(sess.run(out, {x: VALUES, i: iv, j: jv}),
                                      form(VALUES, iv, jv), err_msg=f"{label} i={iv} j={jv}")


def test_slice_bounds_from_shapes_fold_now_or_at_bind(plan_memory):
    known = tf.placeholder(tf.float32, [4, 5, 3])
    n = tf.shape(known)[0]
    assert known[1:n - 1].get_shape().as_list() == [2, 5, 3]  # folded now, as TF's shape
    assert known[::tf.constant(2)].get_shape().as_list() == [2, 5, 3]
    y = tf.placeholder(tf.float32, [None, None, 3])
    rows, cols = tf.shape(y)[0], tf.shape(y)[1]
    forms = [(y[1:rows - 1], lambda v: v[1:-1]), (y[:, :cols * 1 - 2, ::-1],
                                                  lambda v: v[:, :-2, ::-1]),
             (y[rows - 2:, 1], lambda v: v[-2:, 1]),
             (tf.strided_slice(y, [1], tf.stack([rows])), lambda v: v[1:])]
    assert forms[0][0].get_shape().as_list() == [None, None, 3]
    sess = tf.Session(plan_memory=plan_memory)
    for shape in ((4, 5, 3), (6, 3, 3)):  # one graph, bound per feed shape
        value = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        for out, ref in forms:
            np.testing.assert_array_equal(sess.run(out, {y: value}), ref(value))


def test_gradients_against_torch(plan_memory):
    x = tf.placeholder(tf.float32, [None, 5, 3])
    i = tf.placeholder(tf.int64, [])
    n = tf.shape(x)[0]
    loss = tf.reduce_sum(x[i] ** 2) + tf.reduce_sum(x[1:n - 1, -1] * 3.0) + tf.reduce_sum(
        tf.tanh(x[:, i - 2, ::-2]))
    grad = tf.gradients(loss, x)[0]
    tx = torch.tensor(VALUES / 10, dtype=torch.float64, requires_grad=True)
    (torch.sum(tx[-1] ** 2) + torch.sum(tx[1:-1, -1] * 3.0)
     + torch.sum(torch.tanh(tx[:, -3].flip(-1)[:, ::2]))).backward()
    got = tf.Session(plan_memory=plan_memory).run(grad, {x: VALUES / 10, i: -1})
    np.testing.assert_allclose(got, tx.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_gradients_against_finite_differences(plan_memory):
    def build(x):
        y = tf.placeholder_with_default(x, [None, None])  # its shape known only at bind
        rows = tf.shape(y)[0]
        return y[1:rows - 1, ::-2] * y[tf.constant(-1), ::2] + y[:, tf.constant(1, tf.int64)][1]
    check_gradients(build, inputs=[np.random.default_rng(3).normal(size=(4, 5))],
                    plan_memory=plan_memory)


def test_loop_counter_indexes_and_its_gradient(plan_memory):
    x = tf.placeholder(tf.float32, [5, 3])

    def body(i, total):
        return i + 1, total + x[i] * x[-1 - i]

    _, total = tf.while_loop(lambda i, _: i < 5, body, [tf.constant(0), tf.zeros([3])])
    grad = tf.gradients(tf.reduce_sum(total), x)[0]
    value = VALUES[0]
    got, got_grad = tf.Session(plan_memory=plan_memory).run([total, grad], {x: value})
    np.testing.assert_allclose(got, (value * value[::-1]).sum(0))
    np.testing.assert_allclose(got_grad, 2 * value[::-1])


def test_index_out_of_range_is_invalid_argument_and_the_session_survives():
    x = tf.placeholder(tf.float32, [4, 3])
    i = tf.placeholder(tf.int32, [])
    v = tf.Variable(tf.zeros([3]))
    step = tf.assign_add(v, x[i], name="accumulate")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    value = VALUES[:, 0]
    # real TF 1.15: "slice index 4 of dimension 0 out of bounds." (and "slice index -1" for
    # -5: it says the index plus the size)
    for bad, said in ((4, "slice index 4 of dimension 0 out of bounds"),
                      (-5, "slice index -1 of dimension 0 out of bounds")):
        with pytest.raises(tf.errors.InvalidArgumentError, match=said) as err:
            sess.run(step, {x: value, i: bad})
        assert "op 'select_index'" in str(err.value)
    np.testing.assert_array_equal(sess.run(v), np.zeros(3))  # nothing was added
    np.testing.assert_array_equal(sess.run(step, {x: value, i: -4}), value[0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="slice index 3 of dimension 1"):
        sess.run(x[:, i], {x: value, i: 3})


def test_bound_known_only_when_the_graph_runs():
    """A slice bound from a fed value: computed first when the graph runs, the rest bound per
    value it takes (executor/stages.py), as numpy slices (TF's strided_slice semantics)."""
    x = tf.placeholder(tf.float32, [4, 3])
    count = tf.placeholder(tf.int32, [], name="count")
    value = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    rows, first = x[1:count], tf.strided_slice(x, [0], tf.stack([count]))
    with tf.Session() as sess:
        for n in (3, 4, 2, 3):
            got_rows, got_first = sess.run([rows, first], {x: value, count: n})
            np.testing.assert_array_equal(got_rows, value[1:n])
            np.testing.assert_array_equal(got_first, value[:n])
    with pytest.raises(ValueError, match="a slice bound must be a scalar"):
        x[:tf.shape(x)]
    with pytest.raises(TypeError, match="scalar int32/int64 tensors are valid indices"):
        x[1.5]
    with pytest.raises(ValueError, match="depends on while/loop_var, a loop variable"):
        tf.while_loop(lambda i: i < 3, lambda i: i + tf.cast(tf.reduce_sum(x[i:i + 1]), tf.int32),
                      [tf.constant(0)])


def test_bound_from_a_shape_and_a_fed_value():
    y = tf.placeholder(tf.float32, [None, 3])
    count = tf.placeholder(tf.int32, [], name="count")
    # y's shape, not known when the graph is built, and count's value when it runs
    out = y[:-count + tf.shape(y)[0]]
    value = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out, {y: value, count: 1}), value[:3])
        np.testing.assert_array_equal(sess.run(out, {y: value[:3], count: 2}), value[:1])


def test_tf_strided_slice_with_tensor_begin():
    x = tf.placeholder(tf.float32, [4, 3])
    i = tf.placeholder(tf.int32, [])
    sess = tf.Session()
    value = VALUES[:, :, 0].T[:4, :3].copy()
    taken = tf.strided_slice(x, [i, 0], [i + 1, 2], shrink_axis_mask=1)
    assert taken.get_shape().as_list() == [2]
    np.testing.assert_array_equal(sess.run(taken, {x: value, i: 2}), value[2, 0:2])
    np.testing.assert_array_equal(
        sess.run(tf.strided_slice(x, tf.constant([1, 0]), [-1, 3], [1, 2]), {x: value}),
        value[1:-1, ::2])
    with pytest.raises(ValueError, match="1-D tensor of a length known"):
        tf.strided_slice(x, tf.placeholder(tf.int32, [None]), [1])


# numbers printed by real TensorFlow (2.21's tf.compat.v1 in graph mode, the same kernels as
# 1.15) for these inputs
TF_PARAMS = np.arange(12, dtype=np.float32).reshape(4, 3)
TF_NUMBERS = [
    (lambda p: tf.scatter_nd([[1], [1], [0]], [1., 2., 3.], [3]), [3., 3., 0.]),
    (lambda p: tf.tensor_scatter_nd_update(p, [[1], [1]], [[1., 2, 3], [4, 5, 6]]),
     [[0, 1, 2], [4, 5, 6], [6, 7, 8], [9, 10, 11]]),
    (lambda p: tf.reverse_sequence(p, [1, 2, 3], seq_axis=0, batch_axis=1),
     [[0, 4, 8], [3, 1, 5], [6, 7, 2], [9, 10, 11]]),
    (lambda p: tf.gather_nd(np.arange(24, dtype=np.float32).reshape(2, 3, 4), [[1], [2]],
                            batch_dims=1), [[4, 5, 6, 7], [20, 21, 22, 23]]),
    (lambda p: tf.gather_nd(np.arange(24, dtype=np.float32).reshape(2, 3, 4),
                            [[[1, 2]], [[0, 3]]], batch_dims=1), [[6], [15]]),
]


@pytest.mark.parametrize("index", range(len(TF_NUMBERS)))
def test_indexing_ops_give_tensorflows_numbers(index, plan_memory):
    build, expected = TF_NUMBERS[index]
    p = tf.placeholder(tf.float32, [4, 3])
    got = tf.Session(plan_memory=plan_memory).run(build(p), {p: TF_PARAMS})
    np.testing.assert_array_equal(got, np.array(expected, np.float32))


def test_indices_out_of_range_are_tensorflows_errors():
    p = tf.placeholder(tf.float32, [4, 3])
    sess = tf.Session()
    # real TF's messages, word for word up to the node name it adds
    for out, said in (
            (tf.gather_nd(p, [[0, 5]]),
             r"indices\[0\] = \[0, 5\] does not index into param shape \[4, 3\]"),
            (tf.scatter_nd([[5]], [1.], [3]), r"indices\[0\] = \[5\] does not index into shape \[3\]"),
            (tf.tensor_scatter_nd_update(p, [[7]], [[1., 2, 3]]),
             r"indices\[0\] = \[7\] does not index into shape \[4, 3\]"),
            (tf.reverse_sequence(p, [1, 5, 3], seq_axis=0, batch_axis=1),
             r"seq_lens\(1\) > input.dims\(0\)")):
        with pytest.raises(tf.errors.InvalidArgumentError, match=said):
            sess.run(out, {p: TF_PARAMS})
    np.testing.assert_array_equal(sess.run(tf.gather_nd(p, [[3, 2]]), {p: TF_PARAMS}), [11])


def test_shapes_that_do_not_fit_are_errors_as_the_op_is_made():
    p = tf.placeholder(tf.float32, [4, 3])
    with pytest.raises(ValueError, match="gather_nd: indices"):
        tf.gather_nd(p, [[0, 1, 2]])
    with pytest.raises(ValueError, match=r"updates of shape \(2,\) must be"):
        tf.tensor_scatter_nd_add(p, [[1]], [1., 2.])
    with pytest.raises(ValueError, match="seq_lengths of shape"):
        tf.reverse_sequence(p, [1, 2], seq_axis=0, batch_axis=1)
    with pytest.raises(TypeError, match="must be an integer tensor"):
        tf.gather_nd(p, tf.constant([[0.0, 1.0]]))


def test_tensorflow_1_15_names():
    assert tf.tensor_scatter_update is tf.tensor_scatter_nd_update
    assert tf.tensor_scatter_add is tf.tensor_scatter_nd_add
    assert tf.tensor_scatter_sub is tf.tensor_scatter_nd_sub
    assert tf.compat.v1.gather_nd is tf.gather_nd
    x = tf.placeholder(tf.float32, [4, 3])
    assert tf.gather_nd(x, [[1]]).node.kind == "gather_nd"
    assert tf.gather_nd(x, [[1]]).op.type == "GatherNd"


def test_an_op_failing_while_running_is_tensorflows_invalid_argument_error():
    """TF raises InvalidArgumentError for an index out of range in tf.gather; here too (the
    error still a LuaOpError naming the op), and the session runs on."""
    from tinyflow.lua_ops.runtime import LuaOpError
    index = tf.placeholder(tf.int32, [], name="index")
    picked = tf.gather(tf.constant([1.0, 2.0]), index)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="op 'gather'") as err:
            sess.run(picked, {index: 5})
        assert isinstance(err.value, tf.errors.OpError) and isinstance(err.value, LuaOpError)
        assert err.value.op == "GatherV2"
        assert sess.run(picked, {index: 1}) == 2.0
