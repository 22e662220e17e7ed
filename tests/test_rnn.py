"""tf.nn.rnn_cell, the RNN functions and tf.contrib.rnn (TensorFlow 1.15 semantics): values and
gradients through 28 time steps against PyTorch's nn.LSTM / nn.RNN / nn.GRU given the same
weights (TF's kernel [depth + units, gates * units] laid out as torch's weight_ih / weight_hh),
and against hand-written torch references of TF's formulas where torch's differ (GRU's reset
gate, peepholes); memory planning on and off; variable names; the errors."""
import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.contrib import rnn

pytestmark = pytest.mark.usefixtures("fresh_graph", "torch_seed")
F64 = torch.float64
T, B, D, H = 28, 3, 5, 4  # time steps, batch, input depth, units


def _rand(*shape, seed=0, scale=1.0):
    return (np.random.default_rng([seed, *shape]).standard_normal(shape) * scale).astype(
        np.float32)


def _t(array, grad=False):
    return torch.tensor(np.asarray(array), dtype=F64, requires_grad=grad)


def _variable(name):
    [variable] = [v for v in tf.global_variables() if v.op.name == name]
    return variable


def run_tf(results, wrt, feeds, assigns, plan_memory, seed=7):
    """Values of ``results`` (tensors) and the gradients of sum(result * head) over them with
    respect to ``wrt``; ``assigns``: {variable name: value} set before the run.  Returns
    (values, gradients, heads)."""
    heads = [_rand(*r.get_shape().as_list(), seed=seed + i) for i, r in enumerate(results)]
    loss = tf.add_n([tf.reduce_sum(r * tf.constant(h)) for r, h in zip(results, heads)])
    grads = tf.gradients(loss, wrt)
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for name, value in assigns.items():
            sess.run(tf.assign(_variable(name), value))
        got = sess.run(results + grads, feeds)
    return got[:len(results)], got[len(results):], heads


def backward(results, heads):
    """sum(result * head) over the torch results, backpropagated."""
    sum((r * _t(h)).sum() for r, h in zip(results, heads)).backward()


def close(got, want, what, rtol=1e-4, atol=2e-5):
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else want
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


# -- TF's layouts as torch's ------------------------------------------------------------------
def lstm_to_torch(kernel, bias, depth, forget_bias=1.0):
    """TF's [depth + h, 4h] kernel (gates i, j, f, o) as torch's weight_ih, weight_hh, bias
    (gates i, f, g, o); forget_bias folded into f's bias."""
    i, j, f, o = np.split(kernel, 4, axis=1)
    bi, bj, bf, bo = np.split(bias, 4)
    w = np.concatenate([i, f, j, o], axis=1)
    return w[:depth].T, w[depth:].T, np.concatenate([bi, bf + forget_bias, bj, bo])


def lstm_grads_to_tf(grad_ih, grad_hh, grad_bias):
    """torch's weight_ih / weight_hh / bias gradients in TF's kernel and bias layout."""
    i, f, g, o = np.split(np.concatenate([grad_ih.T, grad_hh.T], axis=0), 4, axis=1)
    bi, bf, bg, bo = np.split(grad_bias, 4)
    return np.concatenate([i, g, f, o], axis=1), np.concatenate([bi, bg, bf, bo])


def set_torch_rnn(module, layer, weight_ih, weight_hh, bias, weight_hr=None):
    with torch.no_grad():
        getattr(module, f"weight_ih_{layer}").copy_(_t(weight_ih))
        getattr(module, f"weight_hh_{layer}").copy_(_t(weight_hh))
        getattr(module, f"bias_ih_{layer}").copy_(_t(bias))
        getattr(module, f"bias_hh_{layer}").zero_()
        if weight_hr is not None:
            getattr(module, f"weight_hr_{layer}").copy_(_t(weight_hr))


def torch_grads(module, layer):
    g = {name: getattr(module, f"{name}_{layer}").grad.numpy()
         for name in ("weight_ih", "weight_hh", "bias_ih")}
    return g["weight_ih"], g["weight_hh"], g["bias_ih"]


# -- LSTM ---------------------------------------------------------------------------------------
def _lstm_weights(depth=D, units=H, seed=1):
    return _rand(depth + units, 4 * units, seed=seed, scale=0.5), _rand(4 * units, seed=seed + 1)


@pytest.mark.parametrize("how", ["static", "dynamic", "dynamic_time_major"])
def test_basic_lstm_against_torch(how, plan_memory):
    xs, c0, h0 = _rand(T, B, D, seed=3), _rand(B, H, seed=4), _rand(B, H, seed=5)
    kernel, bias = _lstm_weights()
    cell = tf.nn.rnn_cell.BasicLSTMCell(H, forget_bias=0.7)
    c, h = tf.placeholder(tf.float32, [B, H]), tf.placeholder(tf.float32, [B, H])
    state0 = tf.nn.rnn_cell.LSTMStateTuple(c, h)
    if how == "static":
        x = tf.placeholder(tf.float32, [T, B, D])
        outputs, state = tf.nn.static_rnn(cell, tf.unstack(x), initial_state=state0)
        out = tf.stack(outputs)
    else:
        time_major = how == "dynamic_time_major"
        x = tf.placeholder(tf.float32, [T, B, D] if time_major else [B, T, D])
        out, state = tf.nn.dynamic_rnn(cell, x, initial_state=state0, time_major=time_major)
        out = out if time_major else tf.transpose(out, [1, 0, 2])
    assert isinstance(state, tf.nn.rnn_cell.LSTMStateTuple)
    feed_x = xs if how != "dynamic" else xs.transpose(1, 0, 2)
    variables = [_variable("rnn/basic_lstm_cell/kernel"), _variable("rnn/basic_lstm_cell/bias")]
    got, grads, heads = run_tf(
        [out, state.c, state.h], [x, c, h] + variables, {x: feed_x, c: c0, h: h0},
        {"rnn/basic_lstm_cell/kernel": kernel, "rnn/basic_lstm_cell/bias": bias}, plan_memory)

    lstm = torch.nn.LSTM(D, H).double()
    set_torch_rnn(lstm, "l0", *lstm_to_torch(kernel, bias, D, forget_bias=0.7))
    tx, tc, th = _t(xs, True), _t(c0, True), _t(h0, True)
    want_out, (want_h, want_c) = lstm(tx, (th[None], tc[None]))
    backward([want_out, want_c[0], want_h[0]], heads)
    for name, g, w in zip(["outputs", "c", "h"], got, [want_out, want_c[0], want_h[0]]):
        close(g, w, name)
    grad_x = grads[0] if how != "dynamic" else grads[0].transpose(1, 0, 2)
    close(grad_x, tx.grad, "d inputs")
    close(grads[1], tc.grad, "d c0")
    close(grads[2], th.grad, "d h0")
    want_kernel, want_bias = lstm_grads_to_tf(*torch_grads(lstm, "l0"))
    close(grads[3], want_kernel, "d kernel")
    close(grads[4], want_bias, "d bias")
    assert np.abs(grad_x[0]).max() > 1e-4  # the gradient reaches the first of the 28 steps


def test_lstm_cell_projection_against_torch(plan_memory):
    # TF's num_proj is torch's proj_size: m = (o * tanh(c)) @ projection/kernel
    proj = 3
    xs = _rand(T, B, D, seed=3)
    kernel, bias = _rand(D + proj, 4 * H, seed=1, scale=0.5), _rand(4 * H, seed=2)
    projection = _rand(H, proj, seed=6, scale=0.5)
    x = tf.placeholder(tf.float32, [B, T, D])
    cell = tf.nn.rnn_cell.LSTMCell(H, num_proj=proj)
    assert (cell.state_size, cell.output_size) == ((H, proj), proj)
    out, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    names = ["rnn/lstm_cell/kernel", "rnn/lstm_cell/bias", "rnn/lstm_cell/projection/kernel"]
    got, grads, heads = run_tf([out, state.c, state.h], [x] + [_variable(n) for n in names],
                               {x: xs.transpose(1, 0, 2)},
                               dict(zip(names, [kernel, bias, projection])), plan_memory)
    lstm = torch.nn.LSTM(D, H, proj_size=proj, batch_first=True).double()
    set_torch_rnn(lstm, "l0", *lstm_to_torch(kernel, bias, D), weight_hr=projection.T)
    tx = _t(xs.transpose(1, 0, 2), True)
    want_out, (want_h, want_c) = lstm(tx)
    backward([want_out, want_c[0], want_h[0]], heads)
    for name, g, w in zip(["outputs", "c", "m"], got, [want_out, want_c[0], want_h[0]]):
        close(g, w, name)
    close(grads[0], tx.grad, "d inputs")
    want_kernel, want_bias = lstm_grads_to_tf(*torch_grads(lstm, "l0"))
    close(grads[1], want_kernel, "d kernel")
    close(grads[2], want_bias, "d bias")
    close(grads[3], lstm.weight_hr_l0.grad.numpy().T, "d projection")


def peephole_lstm_reference(xs, kernel, bias, w_f, w_i, w_o, forget_bias, cell_clip):
    """TF 1.15's LSTMCell with peepholes and cell clipping, step by step in torch."""
    c = h = torch.zeros(xs.shape[1], w_f.shape[0], dtype=F64)
    outputs = []
    for x in xs:
        i, j, f, o = (torch.cat([x, h], 1) @ kernel + bias).chunk(4, 1)
        c = (torch.sigmoid(f + forget_bias + w_f * c) * c
             + torch.sigmoid(i + w_i * c) * torch.tanh(j)).clamp(-cell_clip, cell_clip)
        h = torch.sigmoid(o + w_o * c) * torch.tanh(c)
        outputs.append(h)
    return torch.stack(outputs), c, h


def test_lstm_cell_peepholes_and_clip_against_reference(plan_memory):
    xs = _rand(T, B, D, seed=3, scale=2.0)
    kernel, bias = _lstm_weights()
    diags = [_rand(H, seed=s) for s in (11, 12, 13)]
    x = tf.placeholder(tf.float32, [T, B, D])
    cell = tf.nn.rnn_cell.LSTMCell(H, use_peepholes=True, cell_clip=0.8, forget_bias=0.5)
    out, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, time_major=True)
    names = ["rnn/lstm_cell/" + n for n in ("kernel", "bias", "w_f_diag", "w_i_diag",
                                            "w_o_diag")]
    values = [kernel, bias] + diags
    got, grads, heads = run_tf([out, state.c, state.h], [x] + [_variable(n) for n in names],
                               {x: xs}, dict(zip(names, values)), plan_memory)
    leaves = [_t(xs, True)] + [_t(v, True) for v in values]
    want = peephole_lstm_reference(*leaves, forget_bias=0.5, cell_clip=0.8)
    backward(want, heads)
    assert np.abs(got[1]).max() <= 0.8 + 1e-6 and np.isclose(np.abs(got[1]).max(), 0.8)
    for name, g, w in zip(["outputs", "c", "h"], got, want):
        close(g, w, name)
    for name, g, leaf in zip(["inputs"] + names, grads, leaves):
        close(g, leaf.grad, f"d {name}")


# -- GRU and the basic RNN --------------------------------------------------------------------
def tf_gru_reference(xs, h, gate_kernel, gate_bias, candidate_kernel, candidate_bias):
    """TF's GRUCell in torch: r multiplies the state before the candidate's matmul (torch's
    nn.GRU multiplies r into W_hn h + b_hn instead)."""
    outputs = []
    for x in xs:
        r, u = torch.sigmoid(torch.cat([x, h], 1) @ gate_kernel + gate_bias).chunk(2, 1)
        c = torch.tanh(torch.cat([x, r * h], 1) @ candidate_kernel + candidate_bias)
        h = u * h + (1 - u) * c
        outputs.append(h)
    return torch.stack(outputs), h


GRU_NAMES = ["rnn/gru_cell/gates/kernel", "rnn/gru_cell/gates/bias",
             "rnn/gru_cell/candidate/kernel", "rnn/gru_cell/candidate/bias"]


def _gru_tf(weights, xs, h0, plan_memory):
    x, h = tf.placeholder(tf.float32, [T, B, D]), tf.placeholder(tf.float32, [B, H])
    out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(H), x, initial_state=h,
                                   time_major=True)
    return run_tf([out, state], [x, h] + [_variable(n) for n in GRU_NAMES], {x: xs, h: h0},
                  dict(zip(GRU_NAMES, weights)), plan_memory)


def test_gru_against_tf_formula_in_torch(plan_memory):
    xs, h0 = _rand(T, B, D, seed=3), _rand(B, H, seed=4)
    weights = [_rand(D + H, 2 * H, seed=1, scale=0.5), _rand(2 * H, seed=2),
               _rand(D + H, H, seed=3, scale=0.5), _rand(H, seed=4)]
    got, grads, heads = _gru_tf(weights, xs, h0, plan_memory)
    leaves = [_t(xs, True), _t(h0, True)] + [_t(w, True) for w in weights]
    want = tf_gru_reference(*leaves)
    backward(want, heads)
    close(got[0], want[0], "outputs")
    close(got[1], want[1], "state")
    for name, g, leaf in zip(["inputs", "h0"] + GRU_NAMES, grads, leaves):
        close(g, leaf.grad, f"d {name}")


def test_gru_equals_torch_gru_when_reset_gate_is_uniform():
    # with r the same for every unit, W (r * h) == r * (W h): TF's and torch's GRU agree, which
    # checks the r, u / r, z, n layouts against torch's own kernel
    xs, h0 = _rand(T, B, D, seed=3), _rand(B, H, seed=4)
    gate_kernel = _rand(D + H, 2 * H, seed=1, scale=0.5)
    gate_kernel[:, :H] = 0.0
    gate_bias = np.concatenate([np.full(H, 0.3, np.float32), _rand(H, seed=2)])
    candidate_kernel, candidate_bias = _rand(D + H, H, seed=3, scale=0.5), _rand(H, seed=4)
    weights = [gate_kernel, gate_bias, candidate_kernel, candidate_bias]
    got, _, _ = _gru_tf(weights, xs, h0, plan_memory=True)
    gru = torch.nn.GRU(D, H).double()
    set_torch_rnn(gru, "l0", np.concatenate([gate_kernel[:D].T, candidate_kernel[:D].T]),
                  np.concatenate([gate_kernel[D:].T, candidate_kernel[D:].T]),
                  np.concatenate([gate_bias, candidate_bias]))
    want_out, want_h = gru(_t(xs), _t(h0)[None])
    close(got[0], want_out, "outputs")
    close(got[1], want_h[0], "state")


def test_basic_rnn_against_torch(plan_memory):
    xs = _rand(T, B, D, seed=3)
    kernel, bias = _rand(D + H, H, seed=1, scale=0.5), _rand(H, seed=2)
    x = tf.placeholder(tf.float32, [T, B, D])
    outputs, state = rnn.static_rnn(rnn.BasicRNNCell(H), tf.unstack(x), dtype=tf.float32)
    names = ["rnn/basic_rnn_cell/kernel", "rnn/basic_rnn_cell/bias"]
    got, grads, heads = run_tf([tf.stack(outputs), state], [x] + [_variable(n) for n in names],
                               {x: xs}, dict(zip(names, [kernel, bias])), plan_memory)
    cell = torch.nn.RNN(D, H).double()
    set_torch_rnn(cell, "l0", kernel[:D].T, kernel[D:].T, bias)
    tx = _t(xs, True)
    want_out, want_h = cell(tx)
    backward([want_out, want_h[0]], heads)
    close(got[0], want_out, "outputs")
    close(got[1], want_h[0], "state")
    close(grads[0], tx.grad, "d inputs")
    grad_ih, grad_hh, grad_bias = torch_grads(cell, "l0")
    close(grads[1], np.concatenate([grad_ih.T, grad_hh.T]), "d kernel")
    close(grads[2], grad_bias, "d bias")


# -- stacks and both directions ---------------------------------------------------------------
def test_multi_rnn_cell_against_two_layer_torch_lstm(plan_memory):
    xs = _rand(T, B, D, seed=3)
    layers = [_lstm_weights(D, H, seed=1), _lstm_weights(H, H, seed=5)]
    x = tf.placeholder(tf.float32, [B, T, D])
    cell = rnn.MultiRNNCell([rnn.BasicLSTMCell(H) for _ in range(2)])
    out, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    assert len(state) == 2 and all(isinstance(s, rnn.LSTMStateTuple) for s in state)
    names = [f"rnn/multi_rnn_cell/cell_{i}/basic_lstm_cell/{v}" for i in (0, 1)
             for v in ("kernel", "bias")]
    assert sorted(v.op.name for v in tf.trainable_variables()) == sorted(names)
    got, grads, heads = run_tf(
        [out, state[0].c, state[1].h], [x] + [_variable(n) for n in names],
        {x: xs.transpose(1, 0, 2)}, dict(zip(names, [w for layer in layers for w in layer])),
        plan_memory)
    lstm = torch.nn.LSTM(D, H, num_layers=2, batch_first=True).double()
    set_torch_rnn(lstm, "l0", *lstm_to_torch(*layers[0], D))
    set_torch_rnn(lstm, "l1", *lstm_to_torch(*layers[1], H))
    tx = _t(xs.transpose(1, 0, 2), True)
    want_out, (want_h, want_c) = lstm(tx)
    backward([want_out, want_c[0], want_h[1]], heads)
    for name, g, w in zip(["outputs", "c of layer 0", "h of layer 1"], got,
                          [want_out, want_c[0], want_h[1]]):
        close(g, w, name)
    close(grads[0], tx.grad, "d inputs")
    for i, layer in enumerate(("l0", "l1")):
        want_kernel, want_bias = lstm_grads_to_tf(*torch_grads(lstm, layer))
        close(grads[1 + 2 * i], want_kernel, f"d kernel of {layer}")
        close(grads[2 + 2 * i], want_bias, f"d bias of {layer}")


@pytest.mark.parametrize("how", ["static", "dynamic"])
def test_bidirectional_against_torch(how, plan_memory):
    xs = _rand(T, B, D, seed=3)
    fw, bw = _lstm_weights(seed=1), _lstm_weights(seed=8)
    x = tf.placeholder(tf.float32, [T, B, D])
    cell_fw, cell_bw = rnn.BasicLSTMCell(H), rnn.BasicLSTMCell(H)
    if how == "static":
        outputs, state_fw, state_bw = rnn.static_bidirectional_rnn(
            cell_fw, cell_bw, tf.unstack(x), dtype=tf.float32)
        out = tf.stack(outputs)
    else:
        (out_fw, out_bw), (state_fw, state_bw) = tf.nn.bidirectional_dynamic_rnn(
            cell_fw, cell_bw, x, dtype=tf.float32, time_major=True)
        out = tf.concat([out_fw, out_bw], 2)
    names = [f"bidirectional_rnn/{d}/basic_lstm_cell/{v}" for d in ("fw", "bw")
             for v in ("kernel", "bias")]
    got, grads, heads = run_tf([out, state_fw.h, state_bw.c], [x] + [_variable(n) for n in names],
                               {x: xs}, dict(zip(names, [*fw, *bw])), plan_memory)
    lstm = torch.nn.LSTM(D, H, bidirectional=True).double()
    set_torch_rnn(lstm, "l0", *lstm_to_torch(*fw, D))
    set_torch_rnn(lstm, "l0_reverse", *lstm_to_torch(*bw, D))
    tx = _t(xs, True)
    want_out, (want_h, want_c) = lstm(tx)
    backward([want_out, want_h[0], want_c[1]], heads)
    for name, g, w in zip(["outputs", "h fw", "c bw"], got, [want_out, want_h[0], want_c[1]]):
        close(g, w, name)
    close(grads[0], tx.grad, "d inputs")
    for i, layer in enumerate(("l0", "l0_reverse")):
        want_kernel, want_bias = lstm_grads_to_tf(*torch_grads(lstm, layer))
        close(grads[1 + 2 * i], want_kernel, f"d kernel {layer}")
        close(grads[2 + 2 * i], want_bias, f"d bias {layer}")


def test_dynamic_rnn_time_major_both_ways_and_static_agree(plan_memory):
    xs = _rand(T, B, D, seed=3)
    x_tm = tf.placeholder(tf.float32, [T, None, D])
    x_bm = tf.placeholder(tf.float32, [None, T, D])
    cell = rnn.GRUCell(H)  # one cell, called three times: one set of variables
    out_tm, state_tm = tf.nn.dynamic_rnn(cell, x_tm, dtype=tf.float32, time_major=True)
    out_bm, state_bm = tf.nn.dynamic_rnn(cell, x_bm, dtype=tf.float32)
    outputs, state_st = rnn.static_rnn(cell, tf.unstack(x_tm), dtype=tf.float32)
    assert len(tf.trainable_variables()) == 4
    assert out_tm.get_shape().as_list() == [T, None, H]
    assert out_bm.get_shape().as_list() == [None, T, H]
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([out_tm, state_tm, out_bm, state_bm, tf.stack(outputs), state_st],
                       {x_tm: xs, x_bm: xs.transpose(1, 0, 2)})
    np.testing.assert_allclose(got[0], got[2].transpose(1, 0, 2), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got[0], got[4], rtol=1e-6, atol=1e-6)
    for state in (got[3], got[5]):
        np.testing.assert_allclose(got[1], state, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got[1], got[0][-1], rtol=1e-6, atol=1e-6)
