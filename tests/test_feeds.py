"""Issue 24: any tensor fed (CutFeeds) and shapes computed from tensors (FoldShapeArguments).

TensorFlow 1.15's semantics, checked against tensorflow-cpu 2.21's ``tf.compat.v1`` (graph
mode; ``disable_resource_variables`` for a fed variable) when the tests were written, and here
against numpy: a fed tensor takes its value for the run and cuts off what only its producers
needed; fetching it gives the fed value; gradients flow from the fed value (d loss / d W of a W
upstream of it reads the fed value's gradient, and needs the placeholders its own ops read).
"""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients
from tinyflow.nnvm.errors import BindError, DTypeError, ShapeError
from tinyflow.nnvm.graph import Graph, apply_passes
from tinyflow.nnvm.passes.fold_shapes import NotFoldable, fold_value
from tinyflow.nnvm.symbol import Node

pytestmark = pytest.mark.usefixtures("fresh_graph")


def _two_layers():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 6, name="w")
    v = tf.Variable(np.array([[2.0], [-1.0]], np.float32), name="v")
    h = tf.matmul(x, w)
    loss = tf.reduce_sum(tf.matmul(tf.tanh(h), v))
    return x, w, v, h, loss


# -- feeding any tensor ------------------------------------------------------------------------
def test_an_intermediate_tensor_fed_needs_no_upstream_feed(plan_memory):
    x, w, _v, h, loss = _two_layers()
    fed = np.array([[0.5, -1.0], [2.0, 0.0]], np.float32)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(loss, {h: fed})  # x is upstream of h only: not needed
        np.testing.assert_allclose(got, (np.tanh(fed) @ [[2.0], [-1.0]]).sum(), rtol=1e-6)
        np.testing.assert_array_equal(sess.run(h, {h: fed}), fed)  # fed and fetched: its value
        xs = np.ones((1, 3), np.float32)  # not fed: computed as usual, same session
        np.testing.assert_allclose(sess.run(h, {x: xs}), xs @ sess.run(w), rtol=1e-6)
        assert sess.run(h, {"MatMul:0": fed}).tolist() == fed.tolist()  # a tensor's name


def test_gradients_flow_from_the_fed_value():
    x, w, v, h, loss = _two_layers()
    grad_w, grad_v = tf.gradients(loss, [w, v])
    fed = np.array([[0.5, -1.0]], np.float32)
    xs = np.ones((1, 3), np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vs = sess.run(v)
        np.testing.assert_allclose(sess.run(grad_v, {h: fed}), np.tanh(fed).T, rtol=1e-6)
        # d loss / d w = x^T (d loss / d h at the fed h): TF's value, and x is needed for it
        expected = xs.T @ ((1 - np.tanh(fed) ** 2) * vs.T)
        np.testing.assert_allclose(sess.run(grad_w, {h: fed, x: xs}), expected, rtol=1e-5)
        with pytest.raises(BindError, match="placeholder 'x'.*must be fed"):
            sess.run(grad_w, {h: fed})


def test_an_lstm_state_fed_as_a_state_tuple():
    cell = tf.nn.rnn_cell.BasicLSTMCell(4)
    inputs = tf.placeholder(tf.float32, [2, 3, 5])
    state = cell.zero_state(2, tf.float32)
    outputs, final = tf.nn.dynamic_rnn(cell, inputs, initial_state=state)
    assert isinstance(final, tf.nn.rnn_cell.LSTMStateTuple)
    sequence = np.random.default_rng(0).normal(size=(2, 6, 5)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        _first_out, first_state = sess.run([outputs, final], {inputs: sequence[:, :3]})
        # the second half from the first half's state, fed as the state tuple: TF's idiom
        second_out, second_state = sess.run([outputs, final], {inputs: sequence[:, 3:],
                                                               state: first_state})
        zero_out = sess.run(outputs, {inputs: sequence[:, 3:]})  # not fed: the zero state
    assert not np.allclose(zero_out, second_out)  # the fed state was used
    assert isinstance(second_state, tf.nn.rnn_cell.LSTMStateTuple)
    assert second_state.c.shape == second_state.h.shape == (2, 4)
    np.testing.assert_array_equal(sess_run_fed_state(first_state), first_state.h)


def sess_run_fed_state(value):
    """Fetching a fed state tuple's h gives the fed h (TF returns a fed tensor's value)."""
    state = tf.nn.rnn_cell.LSTMStateTuple(tf.zeros([2, 4]) + 1, tf.zeros([2, 4]) + 2)
    with tf.Session() as sess:
        return sess.run(state.h, {state: value})


def test_an_lstm_state_fed_continues_the_sequence():
    cell = tf.nn.rnn_cell.BasicLSTMCell(4)
    half = tf.placeholder(tf.float32, [2, 3, 5])
    whole = tf.placeholder(tf.float32, [2, 6, 5])
    with tf.variable_scope("rnn") as scope:
        state = cell.zero_state(2, tf.float32)
        half_out, half_final = tf.nn.dynamic_rnn(cell, half, initial_state=state)
        scope.reuse_variables()
        whole_out, _ = tf.nn.dynamic_rnn(cell, whole, initial_state=cell.zero_state(2, tf.float32))
    sequence = np.random.default_rng(1).normal(size=(2, 6, 5)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first, carried = sess.run([half_out, half_final], {half: sequence[:, :3]})
        second = sess.run(half_out, {half: sequence[:, 3:], state: carried})
        expected = sess.run(whole_out, {whole: sequence})
    np.testing.assert_allclose(np.concatenate([first, second], 1), expected, rtol=1e-5,
                               atol=1e-6)


def test_a_fed_variable_keeps_its_value():
    v = tf.Variable(np.full((2, 1), 2.0, np.float32))
    doubled = v * 2
    bump = tf.assign_add(v, tf.ones((2, 1)))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        zeros = np.zeros((2, 1), np.float32)
        assert sess.run(doubled, {v: zeros}).tolist() == [[0.0], [0.0]]
        assert sess.run(v, {v: zeros}).tolist() == [[0.0], [0.0]]
        assert sess.run(v).tolist() == [[2.0], [2.0]]  # the stored value is unchanged
        sess.run(bump, {v: zeros})  # an assign writes the variable itself
        assert sess.run(v).tolist() == [[3.0], [3.0]]


def test_feeds_of_tensors_are_checked_and_named():
    x, _w, _v, h, loss = _two_layers()
    scaled = x / 255.0
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(ShapeError, match=r"feed for tensor 'MatMul:0'.*\(1, 3\).*\(\?, 2\)"):
            sess.run(loss, {h: np.ones((1, 3))})
        with pytest.raises(TypeError, match="feed for tensor 'MatMul:0'.*numeric"):
            sess.run(loss, {h: "a string"})
        with pytest.raises(TypeError, match="feed_dict keys must be tensors"):
            sess.run(loss, {3: 1.0})
        with pytest.raises(ValueError, match="tuple of 2 tensors"):
            sess.run(loss, {(h, scaled): np.ones((1, 2))})
        got = sess.run(scaled * 2, {scaled: [[1, 2, 3]]})  # a list, converted to float32
        assert got.dtype == np.float32 and got.tolist() == [[2.0, 4.0, 6.0]]


def test_executors_are_cached_per_fed_tensor():
    x, _w, _v, h, loss = _two_layers()
    xs = np.ones((2, 3), np.float32)
    fed = np.zeros((2, 2), np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        computed = sess.run(loss, {x: xs})
        for _ in range(2):  # alternating: each run gets the executor of its own feeds
            assert sess.run(loss, {h: fed}) == 0.0
            assert sess.run(loss, {x: xs}) == computed
        assert len(sess._executors.signatures(tuple(loss.outputs))) == 2


def test_cut_feeds_alone():
    _x, _w, _v, h, loss = _two_layers()
    stand_in = Node(None, "matmul:0", {"kind": "placeholder", "shape": (-1, 2)})
    graph = apply_passes(Graph([loss.outputs[0], h.outputs[0]],
                               {"fed_entries": {h.outputs[0]: stand_in}}), "CutFeeds")
    names = {n.name for n in graph.indexed.nodes}
    assert "x" not in names and "w" not in names and "matmul:0" in names
    assert graph.outputs[1].node is stand_in
    unchanged = Graph([loss.outputs[0]], {"fed_entries": {}})
    assert apply_passes(unchanged, "CutFeeds") is unchanged


# -- shapes computed from tensors ----------------------------------------------------------------
def _shaped():
    x = tf.placeholder(tf.float32, [None, 3])
    batch = tf.shape(x)[0]
    return x, {
        "random_normal": tf.random_normal(tf.stack([batch, 4]), seed=1),
        "random_uniform": tf.random_uniform([batch * 2, 1], seed=2),
        "zeros": tf.zeros(tf.shape(x)),
        "ones": tf.ones(tf.stack([batch + 1, 5])),
        "reshape": tf.reshape(x, tf.stack([-1, batch * 3])),
        "fill": tf.fill(tf.stack([batch, 2]), 7.0),
        "fill_tensor": tf.fill(tf.shape(x)[0:1], tf.constant(2.0)),
        "tile": tf.tile(x, tf.stack([2, batch])),
        "prod": tf.zeros(tf.stack([tf.reduce_prod(tf.shape(x))])),
    }


@pytest.mark.parametrize("plan_memory", [True, False], ids=["planned", "unplanned"])
def test_shapes_from_tensors_per_feed_shape(plan_memory):
    x, outs = _shaped()
    assert outs["random_normal"].get_shape().as_list() == [None, 4]
    assert outs["ones"].get_shape().as_list() == [None, 5]
    with tf.Session(plan_memory=plan_memory) as sess:
        for batch in (1, 4, 2, 4):  # one session: an executor per feed shape, each its shapes
            xs = np.arange(batch * 3, dtype=np.float32).reshape(batch, 3)
            got = sess.run(outs, {x: xs})
            assert got["random_normal"].shape == (batch, 4)
            assert got["random_uniform"].shape == (batch * 2, 1)
            np.testing.assert_array_equal(got["zeros"], np.zeros_like(xs))
            np.testing.assert_array_equal(got["ones"], np.ones((batch + 1, 5)))
            np.testing.assert_array_equal(got["reshape"], xs.reshape(-1, batch * 3))
            np.testing.assert_array_equal(got["fill"], np.full((batch, 2), 7.0))
            np.testing.assert_array_equal(got["fill_tensor"], np.full((batch,), 2.0))
            np.testing.assert_array_equal(got["tile"], np.tile(xs, (2, batch)))
            assert got["prod"].shape == (batch * 3,)


def test_gradients_through_shapes_from_tensors():
    x = tf.placeholder(tf.float32, [None, 3])
    w = tf.Variable(np.arange(9, dtype=np.float32).reshape(3, 3) / 9)
    flat = tf.reshape(tf.matmul(x, w), tf.stack([-1, tf.shape(x)[0] * 3]))
    tiled = tf.tile(flat, tf.stack([2, 1]))
    (grad,) = tf.gradients(tf.reduce_sum(tiled * tiled), [w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for batch in (2, 3):
            xs = np.arange(batch * 3, dtype=np.float32).reshape(batch, 3)
            # sum of 2 tiles of (x w)^2: d/dw = 4 x^T (x w)
            np.testing.assert_allclose(sess.run(grad, {x: xs}), 4 * xs.T @ (xs @ sess.run(w)),
                                       rtol=1e-5)


def test_a_shape_from_a_fed_value():
    """A shape argument from a fed value (or an op over one): the value first, when the
    graph runs, then the rest bound per value (executor/stages.py)."""
    dims = tf.placeholder(tf.int32, [2], name="dims")
    x = tf.placeholder(tf.float32, [None, 3])
    zeros = tf.zeros(dims, name="z")
    counted = tf.ones(tf.stack([tf.cast(tf.reduce_sum(x), tf.int32), 2]), name="counted")
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(zeros, {dims: [2, 3]}), np.zeros((2, 3)))
        np.testing.assert_array_equal(sess.run(zeros, {dims: [1, 4]}), np.zeros((1, 4)))
        np.testing.assert_array_equal(sess.run(counted, {x: np.ones((1, 3))}), np.ones((3, 2)))
    with pytest.raises(DTypeError, match="shape argument of zeros must be an integer tensor"):
        tf.zeros(tf.cast(tf.shape(x), tf.float32))


def test_fold_value_alone():
    x = tf.placeholder(tf.float32, [None, 3])
    value = tf.stack([tf.shape(x)[0] * 2, tf.shape(x)[1] - 1, 7])
    shapes = {x.outputs[0]: (5, 3)}
    got = fold_value(value.outputs[0], lambda e: shapes.get(e))
    assert got.tolist() == [10, 2, 7]
    with pytest.raises(NotFoldable) as info:
        fold_value(value.outputs[0], lambda e: None)
    assert info.value.waiting
    with pytest.raises(NotFoldable, match="placeholder"):
        fold_value((x * 2).outputs[0], lambda e: (5, 3))


@pytest.mark.parametrize("plan_memory", [True, False], ids=["planned", "unplanned"])
def test_shaped_by_value_gradients_against_finite_differences(plan_memory):
    # op shaped_by_value's gradient rule: its target's FShapeValueGradient (reshape, tile)
    def build(x):
        flat = tf.reshape(x, tf.stack([tf.shape(x)[1], -1]))
        return tf.tile(flat, tf.stack([2, tf.shape(x)[0] - 1]))
    check_gradients(build, inputs=[np.random.default_rng(2).normal(size=(3, 4))],
                    plan_memory=plan_memory)
