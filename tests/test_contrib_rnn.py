"""tf.contrib.rnn's own cells (LSTMBlockCell, LSTMBlockFusedCell, LayerNormBasicLSTMCell, the
projection, embedding and attention wrappers) and tf.nn.rnn_cell's ResidualWrapper /
DeviceWrapper: variable names, values and gradients against numbers from real TensorFlow
(tests/tf_numbers_contrib_rnn.py), memory planning on and off; LSTMBlockCell's clip against
PyTorch autograd of TF's kernel."""
import numpy as np
import pytest
import torch
from tf_numbers_contrib_rnn import REFERENCE

import tinyflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")
rnn = tf.contrib.rnn
B, T, D, H = 3, 4, 2, 3  # as in tf_numbers_contrib_rnn.py
X = np.sin(np.arange(B * T * D) * 0.7).reshape(B, T, D).astype(np.float32)
IDS = (np.arange(B * T).reshape(B, T) * 3) % 5


def weight(k, shape):
    return (np.cos(np.arange(int(np.prod(shape))) * 0.37 + k) * 0.5).reshape(shape).astype(
        np.float32)


def _loss(outputs, states):
    """The loss of tf_numbers_contrib_rnn.py's ``loss_of``."""
    total = 0
    for i, o in enumerate(outputs):
        known = o.get_shape().as_list()
        heads = np.cos(np.arange(int(np.prod(known))) * 0.5 + i).reshape(known)
        total += tf.reduce_sum(o * tf.constant(heads.astype(np.float32)))
    for i, s in enumerate(states):
        total += tf.reduce_sum(s * (0.5 + i))
    return total


def _stacked(result):
    outputs, states_fw, states_bw = result
    return outputs, (states_fw, states_bw)


_C0 = np.linspace(-0.5, 0.5, B * H).reshape(B, H).astype(np.float32)
CASES = {
    "block": lambda x: tf.nn.static_rnn(rnn.LSTMBlockCell(H), tf.unstack(x, T, 1),
                                        dtype=tf.float32),
    "block_peephole_clip": lambda x: tf.nn.dynamic_rnn(
        rnn.LSTMBlockCell(H, forget_bias=0.5, cell_clip=0.3, use_peephole=True), x,
        sequence_length=[4, 2, 3], dtype=tf.float32),
    "layer_norm_lstm": lambda x: tf.nn.dynamic_rnn(
        rnn.LayerNormBasicLSTMCell(H, norm_gain=0.9, norm_shift=0.1), x, dtype=tf.float32),
    "no_norm_lstm": lambda x: tf.nn.static_rnn(
        rnn.LayerNormBasicLSTMCell(H, layer_norm=False), tf.unstack(x, T, 1), dtype=tf.float32),
    "output_projection": lambda x: tf.nn.static_rnn(
        rnn.OutputProjectionWrapper(rnn.BasicLSTMCell(H), 2), tf.unstack(x, T, 1),
        dtype=tf.float32),
    "residual_input_projection": lambda x: tf.nn.dynamic_rnn(
        tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.DeviceWrapper(
            rnn.InputProjectionWrapper(rnn.BasicRNNCell(D), 3, tf.tanh), "/cpu:0")),
        x, sequence_length=[4, 1, 3], dtype=tf.float32),
    "embedding": lambda x: tf.nn.static_rnn(rnn.EmbeddingWrapper(rnn.GRUCell(H), 5, 2),
                                            tf.unstack(x, T, 1), dtype=tf.float32),
    "attention": lambda x: tf.nn.dynamic_rnn(
        rnn.AttentionCellWrapper(rnn.BasicLSTMCell(H), 2), x, sequence_length=[4, 3, 2],
        dtype=tf.float32),
    "attention_concat": lambda x: tf.nn.static_rnn(
        rnn.AttentionCellWrapper(rnn.GRUCell(H), 3, attn_size=2, attn_vec_size=5, input_size=4,
                                 state_is_tuple=False), tf.unstack(x, T, 1), dtype=tf.float32),
    "stack_static": lambda x: _stacked(rnn.stack_bidirectional_rnn(
        [rnn.GRUCell(H), rnn.BasicRNNCell(2)], [rnn.BasicLSTMCell(H), rnn.GRUCell(2)],
        tf.unstack(x, T, 1), dtype=tf.float32, sequence_length=[4, 2, 3])),
    "stack_dynamic": lambda x: _stacked(rnn.stack_bidirectional_dynamic_rnn(
        [rnn.BasicLSTMCell(H), rnn.GRUCell(2)], [rnn.GRUCell(H), rnn.BasicRNNCell(2)], x,
        dtype=tf.float32, sequence_length=[4, 2, 3])),
    "fused": lambda x: rnn.LSTMBlockFusedCell(H)(tf.transpose(x, [1, 0, 2]), dtype=tf.float32),
    "fused_peephole_clip_lengths": lambda x: rnn.LSTMBlockFusedCell(
        H, forget_bias=0.7, cell_clip=0.25, use_peephole=True)(
            tf.transpose(x, [1, 0, 2]), initial_state=(_C0, _C0 * 0.5),
            sequence_length=tf.constant([4, 1, 0])),
}


def _flat(structure):
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flat(item)]
    return [structure]


@pytest.mark.parametrize("plan_memory", [True, False])
@pytest.mark.parametrize("case", list(CASES))
def test_against_tensorflow(case, plan_memory):
    want = REFERENCE[case]
    ids = case == "embedding"
    x = tf.placeholder(tf.int32 if ids else tf.float32, [B, T] if ids else [B, T, D])
    outputs, states = CASES[case](x)
    outputs, states = _flat(outputs), _flat(states)
    loss = _loss(outputs, states)
    variables = tf.trainable_variables()
    assert [v.name for v in variables] == want["variables"]
    grads = tf.gradients(loss, variables + ([] if ids else [x]))
    grads = [tf.convert_to_tensor(g) for g in grads]  # as tf_numbers_contrib_rnn.py
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for k, v in enumerate(variables):
            v.load(weight(k, v.get_shape().as_list()), sess)
        got = sess.run([outputs, states, loss, grads], {x: IDS if ids else X})
    # float32 rounding grows through layer norm's 1 / std (its epsilon is 1e-12)
    atol = 1e-4 if case == "layer_norm_lstm" else 2e-5
    for name, g, w in (("outputs", got[0], want["outputs"]), ("states", got[1], want["states"]),
                       ("grads", got[3], want["grads"])):
        assert len(g) == len(w), name
        for k, (a, b) in enumerate(zip(g, w)):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=atol, err_msg=f"{name}[{k}]")
    assert got[2] == pytest.approx(want["loss"], abs=2e-5)


def test_lstm_block_cell_clip_is_straight_through():
    """TF's LSTMBlockCellGrad ignores the cell clip; checked against PyTorch autograd of the
    kernel's step with the clip written as x + (clip(x) - x).detach(), and against a plain
    clip's zero gradient where it clips."""
    cell = rnn.LSTMBlockCell(H, cell_clip=0.05)
    x = tf.placeholder(tf.float32, [B, D])
    c0, h0 = tf.placeholder(tf.float32, [B, H]), tf.placeholder(tf.float32, [B, H])
    h, (c, _) = cell(x, (c0, h0))
    grads = tf.gradients(tf.reduce_sum(h) + tf.reduce_sum(c * 2.0), [x, c0, cell.weights[0]])
    values = [X[:, 0], np.cos(np.arange(B * H)).reshape(B, H).astype(np.float32),
              np.sin(np.arange(B * H) * 0.3).reshape(B, H).astype(np.float32)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        kernel = weight(0, [D + H, 4 * H])
        cell.weights[0].load(kernel, sess)
        got = sess.run([c, *grads], dict(zip([x, c0, h0], values)))
    xt, ct, ht = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values)
    wt = torch.tensor(kernel, dtype=torch.float64, requires_grad=True)
    i, j, f, o = torch.split(torch.cat([xt, ht], 1) @ wt, H, 1)
    cs = torch.sigmoid(f + 1.0) * ct + torch.sigmoid(i) * torch.tanh(j)
    assert (cs.abs() > 0.05).any()  # the clip does clip
    cs = cs + (cs.clamp(-0.05, 0.05) - cs).detach()
    hs = torch.sigmoid(o) * torch.tanh(cs)
    (hs.sum() + (cs * 2.0).sum()).backward()
    np.testing.assert_allclose(got[0], cs.detach().numpy(), rtol=1e-5, atol=1e-6)
    for g, t in zip(got[1:], (xt, ct, wt)):
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_lstm_block_cell_is_lstm_cells_layout():
    """Its scope and variables are LSTMCell's (TF: 'for variable-name compatibility'), and
    static_rnn without peepholes or clip is one lstm_block node."""
    x = tf.placeholder(tf.float32, [B, T, D])
    tf.nn.static_rnn(rnn.LSTMBlockCell(H), tf.unstack(x, T, 1), dtype=tf.float32)
    kinds = {n.kind for n in tf.get_default_graph().nodes_by_name.values()}
    assert "lstm_block" in kinds
    cell = rnn.LSTMBlockCell(H, use_peephole=True, cell_clip=-1.0)  # <= 0: no clip, as TF
    assert cell._cell_clip is None and cell.name == "lstm_cell"
    assert cell.state_size == (H, H) and cell.output_size == H


def test_lstm_block_fused_cell_lists_and_errors():
    """A list of inputs gives a list of outputs, the same values as the stacked tensor's."""
    x = tf.placeholder(tf.float32, [T, B, D])
    cell = rnn.LSTMBlockFusedCell(H)
    stacked, _ = cell(x, dtype=tf.float32)
    listed, _ = cell(tf.unstack(x), dtype=tf.float32)  # the same variables, reused
    assert isinstance(listed, list) and len(listed) == T and len(cell.weights) == 2
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b = sess.run([stacked, listed], {x: X.transpose(1, 0, 2)})
    np.testing.assert_allclose(a, np.stack(b), rtol=1e-6)
    with pytest.raises(ValueError, match="Either initial_state or dtype"):
        cell(x)
    with pytest.raises(ValueError, match="inputs \\[time, batch, depth\\]"):
        cell(tf.placeholder(tf.float32, [B, D]), dtype=tf.float32)


def test_wrapper_errors():
    with pytest.raises(ValueError, match="embedding_classes and embedding_size must be > 0"):
        rnn.EmbeddingWrapper(rnn.GRUCell(H), 0, 2)
    with pytest.raises(ValueError, match="attn_length should be greater than zero"):
        rnn.AttentionCellWrapper(rnn.GRUCell(H), 0)
    with pytest.raises(ValueError, match="state_is_tuple is not set"):
        rnn.AttentionCellWrapper(rnn.BasicLSTMCell(H), 2, state_is_tuple=False)
    with pytest.raises(ValueError, match="projection's size must be positive"):
        rnn.OutputProjectionWrapper(rnn.GRUCell(H), 0)
    with pytest.raises(TypeError):
        rnn.ResidualWrapper("not a cell")
    cell = tf.nn.rnn_cell.ResidualWrapper(rnn.GRUCell(H))
    x = tf.placeholder(tf.float32, [B, D])
    with pytest.raises(ValueError, match="ResidualWrapper: inputs of shape"):
        cell(x, cell.zero_state(B, tf.float32))
    for args, problem in (([[], [cell]], "at least one fw cell"),
                          ([[cell], cell], "cells_bw must be a list"),
                          ([[cell], [cell, cell]], "the same depth")):
        with pytest.raises(ValueError, match=problem):
            rnn.stack_bidirectional_dynamic_rnn(*args, tf.zeros([B, T, D]), dtype=tf.float32)
    with pytest.raises(ValueError, match="initial_states_fw must be a list"):
        rnn.stack_bidirectional_rnn([cell], [cell], [x], initial_states_fw=[1, 2])
    with pytest.raises(AttributeError, match="tf.contrib.rnn.NASCell is not supported"):
        rnn.NASCell  # noqa: B018
