"""tf.nn.dynamic_rnn / bidirectional_dynamic_rnn as a loop over time (TF 1.15 semantics): an
unknown number of time steps (one graph run at several lengths), per-example sequence_length
(zeros past each example's length, the final state at it), time_major, initial_state, nested
states.  Values and gradients against numbers from real TensorFlow (tests/tf_numbers_dynamic_rnn.py)
and against PyTorch autograd over the same computation unrolled by hand (TF's BasicLSTMCell with
the copy-through of TF's _rnn_step); memory planning on and off."""
import numpy as np
import pytest
import torch
from tf_numbers_dynamic_rnn import REFERENCE

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph", "torch_seed")
F64 = torch.float64


# -- against real TensorFlow ------------------------------------------------------------------
B, T, D, H = 3, 4, 2, 3  # as in tf_numbers_dynamic_rnn.py
X = np.sin(np.arange(B * T * D) * 0.7).reshape(B, T, D).astype(np.float32)


def weight(k, shape):
    return (np.cos(np.arange(int(np.prod(shape))) * 0.37 + k) * 0.5).reshape(shape).astype(
        np.float32)


def _loss(outputs, states):
    """The loss of tf_numbers_dynamic_rnn.py's ``loss_of``."""
    total = 0
    for i, o in enumerate(outputs):
        known = o.get_shape().as_list()
        heads = np.cos(np.arange(int(np.prod(known))) * 0.5 + i).reshape(known)
        total += tf.reduce_sum(o * tf.constant(heads.astype(np.float32)))
    for i, s in enumerate(states):
        total += tf.reduce_sum(s * (0.5 + i))
    return total


def _lstm(x):
    return tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(H), x, sequence_length=[4, 2, 0],
                             dtype=tf.float32)


def _bigru(x):
    return tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.GRUCell(H), tf.nn.rnn_cell.GRUCell(H), x,
        sequence_length=tf.constant([4, 3, 1], tf.int64), dtype=tf.float32)


def _multi(x):
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(H),
                                        tf.nn.rnn_cell.LSTMCell(2, num_proj=2)])
    zero = cell.zero_state(B, tf.float32)
    init = (tf.nn.rnn_cell.LSTMStateTuple(zero[0][0] + 0.1, zero[0][1] - 0.2), zero[1])
    return tf.nn.dynamic_rnn(cell, x, sequence_length=[3, 4, 1], initial_state=init,
                             time_major=True)


def _static_bi(x):
    outputs, fw, bw = tf.nn.static_bidirectional_rnn(
        tf.nn.rnn_cell.GRUCell(H), tf.nn.rnn_cell.BasicRNNCell(H), tf.unstack(x, T, 1),
        sequence_length=[4, 3, 1], dtype=tf.float32)
    return tf.stack(outputs, 1), (fw, bw)


def _flat(structure):
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flat(item)]
    return [structure]


@pytest.mark.parametrize("plan_memory", [True, False])
@pytest.mark.parametrize("case, build", [("lstm", _lstm), ("bigru", _bigru),
                                         ("multi", _multi), ("static_bi", _static_bi)])
def test_against_tensorflow(case, build, plan_memory):
    want = REFERENCE[case]
    # the time steps known when it runs (static_rnn takes a list: known when built)
    x = tf.placeholder(tf.float32, [B, T, D] if case == "static_bi" else [None, None, D])
    outputs, states = build(tf.transpose(x, [1, 0, 2]) if case == "multi" else x)
    outputs, states = _flat(outputs), _flat(states)
    fixed = [tf.reshape(o, ([T, B] if case == "multi" else [B, T]) + [o.get_shape()[-1].value])
             for o in outputs]
    loss = _loss(fixed, states)
    variables = tf.trainable_variables()
    assert [v.name for v in variables] == want["variables"]
    grads = tf.gradients(loss, variables + [x])
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for k, v in enumerate(variables):
            v.load(weight(k, v.get_shape().as_list()), sess)
        got = sess.run([fixed, states, loss, grads], {x: X})
    for name, g, w in [("outputs", got[0], want["outputs"]), ("states", got[1], want["states"]),
                       ("grads", got[3], want["grads"])]:
        for i, (a, b) in enumerate(zip(g, w)):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=2e-6, err_msg=f"{case} {name} {i}")
    np.testing.assert_allclose(got[2], want["loss"], rtol=1e-5)


# -- against PyTorch autograd, unrolled by hand ------------------------------------------------
def torch_lstm(x, lengths, kernel, bias, c0, h0, forget_bias=1.0):
    """TF's BasicLSTMCell over x [batch, time, depth] with _rnn_step's copy-through: outputs
    zeros and state kept from each example's length on."""
    outputs, c, h = [], c0, h0
    for t in range(x.shape[1]):
        gates = torch.cat([x[:, t], h], 1) @ kernel + bias
        i, j, f, o = gates.chunk(4, 1)
        new_c = c * torch.sigmoid(f + forget_bias) + torch.sigmoid(i) * torch.tanh(j)
        new_h = torch.tanh(new_c) * torch.sigmoid(o)
        done = (t >= lengths)[:, None]
        outputs.append(torch.where(done, torch.zeros_like(new_h), new_h))
        c, h = torch.where(done, c, new_c), torch.where(done, h, new_h)
    return torch.stack(outputs, 1), c, h


def _rand(*shape, seed=0, scale=1.0):
    return (np.random.default_rng([seed, *shape]).standard_normal(shape) * scale).astype(
        np.float32)


def _t(array, grad=False):
    return torch.tensor(np.asarray(array), dtype=F64, requires_grad=grad)


@pytest.mark.parametrize("plan_memory", [True, False])
@pytest.mark.parametrize("time_major", [False, True])
def test_lstm_varying_lengths_and_steps_against_torch(time_major, plan_memory):
    """One graph, fed batches of 7 and then 3 time steps with fed lengths (0 and the full
    length included) and a given initial state; values and gradients of every input."""
    batch, depth, units = 5, 3, 4
    x = tf.placeholder(tf.float32, [None, None, depth])
    lengths = tf.placeholder(tf.int32, [None])
    c0, h0 = tf.placeholder(tf.float32, [None, units]), tf.placeholder(tf.float32, [None, units])
    cell = tf.nn.rnn_cell.BasicLSTMCell(units)
    inputs = tf.transpose(x, [1, 0, 2]) if time_major else x
    out, state = tf.nn.dynamic_rnn(cell, inputs, sequence_length=lengths, time_major=time_major,
                                   initial_state=tf.nn.rnn_cell.LSTMStateTuple(c0, h0))
    out = tf.transpose(out, [1, 0, 2]) if time_major else out
    heads = tf.placeholder(tf.float32, [None, None, units])
    loss = tf.reduce_sum(out * heads) + tf.reduce_sum(state.c * 0.3) - tf.reduce_sum(state.h)
    kernel, bias = tf.trainable_variables()
    assert kernel.op.name == "rnn/basic_lstm_cell/kernel"
    grads = tf.gradients(loss, [kernel, bias, x, c0, h0])
    k, b = _rand(depth + units, 4 * units, seed=1, scale=0.5), _rand(4 * units, seed=2)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        kernel.load(k, sess)
        bias.load(b, sess)
        for steps, lens in [(7, [7, 3, 0, 5, 1]), (3, [2, 3, 3, 1, 0])]:
            feeds = {x: _rand(batch, steps, depth, seed=steps), lengths: lens,
                     c0: _rand(batch, units, seed=4), h0: _rand(batch, units, seed=5),
                     heads: _rand(batch, steps, units, seed=6)}
            got = sess.run([out, state.c, state.h] + grads, feeds)
            tk, tb, tx, tc, th = (_t(v, True) for v in (k, b, feeds[x], feeds[c0], feeds[h0]))
            o, c, h = torch_lstm(tx, torch.tensor(lens), tk, tb, tc, th)
            ((o * _t(feeds[heads])).sum() + (c * 0.3).sum() - h.sum()).backward()
            want = [o, c, h, tk.grad, tb.grad, tx.grad, tc.grad, th.grad]
            for i, (a, w) in enumerate(zip(got, want)):
                np.testing.assert_allclose(a, w.detach().numpy(), rtol=1e-4, atol=1e-5,
                                           err_msg=f"steps {steps}: result {i}")
            assert not got[0][lens.index(0)].any()  # length 0: zero outputs


@pytest.mark.parametrize("plan_memory", [True, False])
def test_static_rnn_and_static_steps_with_lengths_against_torch(plan_memory):
    """static_rnn with lengths (unrolled, with the copy-through) and dynamic_rnn of a static
    number of steps with lengths (the loop) give TF's values."""
    batch, steps, depth, units = 3, 5, 2, 3
    x = tf.placeholder(tf.float32, [batch, steps, depth])
    lens = [5, 1, 3]
    cell = tf.nn.rnn_cell.BasicLSTMCell(units)
    static, static_state = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32,
                                            sequence_length=lens)
    dynamic, dynamic_state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32,
                                               sequence_length=tf.constant(lens))
    assert dynamic.get_shape().as_list() == [batch, steps, units]
    kernel, bias = tf.trainable_variables()
    k, b = _rand(depth + units, 4 * units, seed=3, scale=0.5), _rand(4 * units, seed=4)
    xv = _rand(batch, steps, depth, seed=9)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        kernel.load(k, sess)
        bias.load(b, sess)
        got = sess.run([tf.stack(static, 1), static_state.h, dynamic, dynamic_state.h], {x: xv})
    zeros = torch.zeros(batch, units, dtype=F64)
    o, _, h = torch_lstm(_t(xv), torch.tensor(lens), _t(k), _t(b), zeros, zeros)
    for i, want in enumerate([o, h, o, h]):
        np.testing.assert_allclose(got[i], want.numpy(), rtol=1e-4, atol=1e-5, err_msg=str(i))


def test_training_through_the_loop_learns():
    """Adam through the loop: the loss of a small regression on fed lengths falls."""
    x = tf.placeholder(tf.float32, [None, None, 2])
    lengths = tf.placeholder(tf.int32, [None])
    target = tf.placeholder(tf.float32, [None, 1])
    _, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(8), x, sequence_length=lengths,
                                 dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(tf.layers.dense(state, 1) - target))
    train = tf.train.AdamOptimizer(0.02).minimize(loss)
    rng = np.random.default_rng(0)
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(60):
            steps = 3 + step % 4
            xv = rng.standard_normal((16, steps, 2)).astype(np.float32)
            lens = rng.integers(1, steps + 1, 16)
            mask = np.arange(steps)[None, :] < lens[:, None]
            want = (xv[:, :, 0] * mask).sum(1, keepdims=True)  # the sum of the first channel
            losses.append(sess.run([loss, train], {x: xv, lengths: lens, target: want})[0])
    assert np.mean(losses[-10:]) < 0.5 * np.mean(losses[:10])


def test_errors_name_the_problem():
    x = tf.placeholder(tf.float32, [None, None, 3])
    with pytest.raises(ValueError, match="sequence_length must be a vector of length "
                       "batch_size, but saw shape"):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), x, sequence_length=[[1, 2]],
                          dtype=tf.float32)
    with pytest.raises(TypeError, match="sequence_length must be an int32 or int64"):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), x, dtype=tf.float32,
                          sequence_length=tf.placeholder(tf.float32, [None]))
    y = tf.placeholder(tf.float32, [4, None, 3])
    with pytest.raises(ValueError, match="sequence_length has 2 entries for a batch of 4"):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), y, sequence_length=[1, 2],
                          dtype=tf.float32)
    with pytest.raises(ValueError, match="inputs' rank must be known"):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), tf.placeholder(tf.float32),
                          dtype=tf.float32)
    with pytest.raises(ValueError, match="dtype must be specified"):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), x)


@pytest.mark.parametrize("plan_memory", [True, False])
@pytest.mark.parametrize("memory", [None, "mirror"])
def test_the_loop_keeps_for_the_backward_only_what_it_reads(plan_memory, memory):
    """Per iteration the forward keeps what the gradient reads, not the [time, batch, units]
    output buffer it never reads: the step counter, the cell state c, and the cell's
    intermediates (BasicLSTMCell's concat([x, h]) for the matmul's gradient, the activations
    sigmoid(i), tanh(j), sigmoid(f + 1), sigmoid(o), tanh(c') for theirs), so the backward does
    not compute the cell again; under a memory= policy only the loop variables it recomputes
    them from (time, c and h).  The memory plan reports bytes per iteration x trips."""
    batch, steps, units, depth = 2, 5, 4, 3
    x = tf.placeholder(tf.float32, [None, None, depth])
    out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(units), x, dtype=tf.float32)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(out))
    feeds = {x: np.ones((batch, steps, depth), np.float32)}
    with tf.Session(plan_memory=plan_memory, memory=memory) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, feeds)
        loops = sess.memory_plan(train, feeds).loops
    forward = next(row for row in loops if not row[0].startswith("gradients/"))
    state = batch * units * 4
    kept = 4 + state + 5 * state + batch * (depth + units) * 4 if memory is None \
        else 4 + 2 * state
    assert forward[2:] == (kept, steps)


def test_a_variable_made_inside_a_loop_body_gets_its_gradient():
    """A variable the body makes (a cell's first call inside dynamic_rnn's loop) is captured
    like one made outside: d/dw of sum(tanh(tanh(x w) w)) against torch."""
    x = tf.placeholder(tf.float32, [2, 3])

    def body(i, h):
        w = tf.get_variable("w", [3, 3], initializer=tf.constant_initializer(
            np.arange(9).reshape(3, 3) * 0.1))
        return i + 1, tf.tanh(tf.matmul(h, w))
    _, h = tf.while_loop(lambda i, h: i < 2, body, [tf.constant(0), x])
    [w] = tf.trainable_variables()
    grad = tf.gradients(tf.reduce_sum(h), w)[0]
    xv = _rand(2, 3, seed=3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(grad, {x: xv})
    tw = _t(np.arange(9).reshape(3, 3) * 0.1, True)
    torch.tanh(torch.tanh(_t(xv) @ tw) @ tw).sum().backward()
    np.testing.assert_allclose(got, tw.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_two_gradients_through_one_loop_in_one_run():
    """One gradient through the outputs, one through the final state only (whose backward
    skips the output buffer): two backward nodes read one forward's history; run together,
    each equals the same gradient run alone."""
    x = tf.placeholder(tf.float32, [2, 4, 3])
    out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), tf.identity(x),
                                   dtype=tf.float32)
    through_outputs = tf.gradients(tf.reduce_sum(out * out), x)[0]
    through_state = tf.gradients(tf.reduce_sum(state.h), x)[0]
    feeds = {x: np.random.default_rng(4).normal(size=(2, 4, 3)).astype(np.float32)}
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    together = sess.run([through_outputs, through_state], feeds)
    alone = [sess.run(through_outputs, feeds), sess.run(through_state, feeds)]
    for got, expected in zip(together, alone):
        np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert np.abs(together[0] - together[1]).max() > 1e-3


def test_numpy_inputs_are_converted_as_tensorflow():
    values = np.random.RandomState(0).randn(2, 4, 5).astype(np.float32)
    with tf.variable_scope("from_array"):
        from_array, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), values, dtype=tf.float32)
    with tf.variable_scope("from_array", reuse=True):
        from_tensor, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), tf.constant(values),
                                           dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([from_array, from_tensor])
    np.testing.assert_array_equal(got[0], got[1])
