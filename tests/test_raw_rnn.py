"""tf.nn.raw_rnn (TF 1.15's loop_fn protocol on tf.while_loop and dynamic-size TensorArrays):
emits, final states, the loop state and gradients against numbers from real TensorFlow
(tests/tf_numbers_raw_rnn.py), memory planning on and off; its errors."""
import numpy as np
import pytest
from tf_numbers_raw_rnn import REFERENCE

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")
T, B, D, H = 5, 3, 2, 4  # as in tf_numbers_raw_rnn.py
X = np.sin(np.arange(T * B * D) * 0.7).reshape(T, B, D).astype(np.float32)
LENGTHS = np.array([5, 2, 3], np.int32)


def weight(k, shape):
    return (np.cos(np.arange(int(np.prod(shape))) * 0.37 + k) * 0.5).reshape(shape).astype(
        np.float32)


def _lstm(x, seq):
    inputs_ta = tf.TensorArray(tf.float32, size=T).unstack(x)
    cell = tf.nn.rnn_cell.LSTMCell(H)

    def loop_fn(time, cell_output, cell_state, loop_state):
        state = cell.zero_state(B, tf.float32) if cell_output is None else cell_state
        finished = time >= seq
        # TF's own example: it reads index T in the branch not taken (the reference clamps
        # the index, the same values): only the branch taken runs
        next_input = tf.cond(tf.reduce_all(finished), lambda: tf.zeros([B, D]),
                             lambda: inputs_ta.read(time))
        return finished, next_input, state, cell_output, None
    emit_ta, state, loop_state = tf.nn.raw_rnn(cell, loop_fn)
    assert loop_state is None
    return [emit_ta.stack()], list(state)


def _gru_emit_loop_state(x, seq):
    inputs_ta = tf.TensorArray(tf.float32, size=T).unstack(x)
    cell = tf.nn.rnn_cell.GRUCell(H)

    def loop_fn(time, cell_output, cell_state, loop_state):
        if cell_output is None:
            state, emit = cell.zero_state(B, tf.float32) + 0.25, (tf.zeros([H]), tf.zeros([1]))
            loop_state = tf.constant(0.0)
        else:
            state = cell_state
            emit = (cell_output, tf.reduce_sum(cell_output * cell_output, 1, keepdims=True))
            loop_state = loop_state + tf.reduce_sum(cell_output)
        finished = time >= seq
        next_input = inputs_ta.read(tf.minimum(time, T - 1)) * 2.0
        return finished, next_input, state, emit, loop_state
    (out_ta, squares_ta), state, loop_state = tf.nn.raw_rnn(cell, loop_fn, scope="decoder")
    return [out_ta.stack(), squares_ta.stack()], [state, loop_state]


def _loss(outputs, states):
    """The loss of tf_numbers_raw_rnn.py's ``loss_of``."""
    total = 0
    for i, o in enumerate(outputs):
        known = o.get_shape().as_list()
        heads = np.cos(np.arange(int(np.prod(known))) * 0.5 + i).reshape(known)
        total += tf.reduce_sum(o * tf.constant(heads.astype(np.float32)))
    for i, s in enumerate(states):
        total += tf.reduce_sum(s * (0.5 + i))
    return total


@pytest.mark.parametrize("plan_memory", [True, False])
@pytest.mark.parametrize("case, build", [("lstm", _lstm),
                                         ("gru_emit_loop_state", _gru_emit_loop_state)])
def test_against_tensorflow(case, build, plan_memory):
    want = REFERENCE[case]
    x = tf.placeholder(tf.float32, [T, B, D])
    seq = tf.placeholder(tf.int32, [B])
    outputs, states = build(x, seq)
    steps = [tf.reshape(o, [T, B, o.get_shape()[-1]]) for o in outputs]
    loss = _loss(steps, states)
    variables = tf.trainable_variables()
    assert [v.name for v in variables] == want["variables"]
    grads = tf.gradients(loss, variables + [x])
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for k, v in enumerate(variables):
            v.load(weight(k, v.get_shape().as_list()), sess)
        got = sess.run([outputs, states, loss, grads], {x: X, seq: LENGTHS})
    for name, g, w in (("outputs", got[0], want["outputs"]), ("states", got[1], want["states"]),
                       ("grads", got[3], want["grads"])):
        assert len(g) == len(w), name
        for k, (a, b) in enumerate(zip(g, w)):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=2e-5, err_msg=f"{name}[{k}]")
    assert got[2] == pytest.approx(want["loss"], abs=1e-4)


def test_stops_when_all_finished():
    """The loop runs until every example is finished: as many steps as the longest."""
    x = tf.placeholder(tf.float32, [T, B, D])
    seq = tf.placeholder(tf.int32, [B])
    outputs, _ = _lstm(x, seq)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for lengths, steps in (([1, 1, 1], 1), ([2, 4, 3], 4)):
            got = sess.run(outputs[0], {x: X, seq: lengths})
            assert got.shape == (steps, B, H)
            assert np.all(got[np.array(lengths)[None, :] <= np.arange(steps)[:, None]] == 0)


def test_errors():
    cell = tf.nn.rnn_cell.GRUCell(H)
    with pytest.raises(TypeError, match="loop_fn must be a callable"):
        tf.nn.raw_rnn(cell, None)
    x = tf.placeholder(tf.float32, [B, D])
    n = tf.placeholder(tf.float32, [None])

    def loop_fn(time, cell_output, cell_state, loop_state):
        return time >= 2, x, cell.zero_state(B, tf.float32) if cell_state is None else \
            cell_state, n if cell_output is None else cell_output, None
    with pytest.raises(ValueError, match="raw_rnn: the emit structure's shapes must be known"):
        tf.nn.raw_rnn(cell, loop_fn)
