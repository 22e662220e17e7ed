"""tf.nn.rnn_cell, the RNN functions and tf.contrib.rnn (TensorFlow 1.15 semantics): values and
gradients through 28 time steps against PyTorch's nn.LSTM / nn.RNN / nn.GRU given the same
weights (TF's kernel [depth + units, gates * units] laid out as torch's weight_ih / weight_hh),
and against hand-written torch references of TF's formulas where torch's differ (GRU's reset
gate, peepholes); memory planning on and off; variable names; the errors."""
import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.frontend.contrib import rnn
from tinyflow.nnvm.errors import ShapeError
from tinyflow.nnvm.symbol import create_op

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
    heads = [_rand(*r.get_shape().as_list(), seed=seed + i).astype(r.dtype.as_numpy_dtype)
             for i, r in enumerate(results)]
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


def test_basic_lstm_float64_against_torch(plan_memory):
    """float64: lstm_block's kernels take their other path (addmm into a buffer, not oneDNN's
    float32 GEMM and numpy's tanh over views); values and gradients to float64's precision."""
    xs, c0, h0 = _rand(T, B, D, seed=3), _rand(B, H, seed=4), _rand(B, H, seed=5)
    kernel, bias = (w.astype(np.float64) for w in _lstm_weights())
    cell = tf.nn.rnn_cell.BasicLSTMCell(H, forget_bias=0.7, dtype=tf.float64)
    x = tf.placeholder(tf.float64, [T, B, D])
    c, h = tf.placeholder(tf.float64, [B, H]), tf.placeholder(tf.float64, [B, H])
    outputs, state = tf.nn.static_rnn(cell, tf.unstack(x), initial_state=(
        tf.nn.rnn_cell.LSTMStateTuple(c, h)))
    assert "lstm_block" in _lstm_graph_nodes()
    variables = [_variable("rnn/basic_lstm_cell/kernel"), _variable("rnn/basic_lstm_cell/bias")]
    got, grads, heads = run_tf(
        [tf.stack(outputs), state.c], [x, c, h] + variables, {x: xs, c: c0, h: h0},
        {"rnn/basic_lstm_cell/kernel": kernel, "rnn/basic_lstm_cell/bias": bias}, plan_memory)

    lstm = torch.nn.LSTM(D, H).double()
    set_torch_rnn(lstm, "l0", *lstm_to_torch(kernel, bias, D, forget_bias=0.7))
    tx, tc, th = _t(xs, True), _t(c0, True), _t(h0, True)
    want_out, (_, want_c) = lstm(tx, (th[None], tc[None]))
    backward([want_out, want_c[0]], [heads[0], heads[1]])
    for name, g, w in zip(["outputs", "c"], got, [want_out, want_c[0]]):
        close(g, w, name, rtol=1e-10, atol=1e-12)
    want_kernel, want_bias = lstm_grads_to_tf(*torch_grads(lstm, "l0"))
    for name, g, w in zip(["d inputs", "d c0", "d h0", "d kernel", "d bias"], grads,
                          [tx.grad, tc.grad, th.grad, want_kernel, want_bias]):
        close(g, w, name, rtol=1e-10, atol=1e-12)


def _lstm_graph_nodes():
    return [n.kind for n in tf.get_default_graph().nodes_by_name.values()]


@pytest.mark.parametrize("cell_type", ["BasicLSTMCell", "LSTMCell"])
@pytest.mark.parametrize("state_is_tuple", [True, False])
def test_lstm_block_equals_the_unrolled_cells(cell_type, state_is_tuple, plan_memory):
    """static_rnn over a BasicLSTMCell, or an LSTMCell without peepholes, clipping or
    projection (peers.py's LSTM: tf.unstack(x, axis=1), the zero state, outputs[-1] read) runs
    as one lstm_block, and a subclass with its own call runs unrolled: both against torch's
    nn.LSTM, the loss and every gradient, x's included."""
    xs, kernel, bias = _rand(B, T, D, seed=3), *_lstm_weights()
    fused = getattr(rnn, cell_type)
    scope = "rnn/" + ("basic_lstm_cell" if cell_type == "BasicLSTMCell" else "lstm_cell")

    class Unrolled(fused):  # its own call: static_rnn unrolls it
        def call(self, inputs, state):
            return super().call(inputs, state)

    for cell_class, blocks in ((fused, 1), (Unrolled, 0)):
        tf.reset_default_graph()
        x = tf.placeholder(tf.float32, [B, T, D])
        cell = cell_class(H, state_is_tuple=state_is_tuple, name=scope.split("/")[1])
        outputs, state = tf.nn.static_rnn(cell, tf.unstack(x, T, 1), dtype=tf.float32)
        c = state.c if state_is_tuple else state[:, :H]
        assert _lstm_graph_nodes().count("lstm_block") == blocks
        got, grads, heads = run_tf(
            [outputs[-1], c], [x, _variable(scope + "/kernel"), _variable(scope + "/bias")],
            {x: xs}, {scope + "/kernel": kernel, scope + "/bias": bias}, plan_memory)
        lstm = torch.nn.LSTM(D, H, batch_first=True).double()
        set_torch_rnn(lstm, "l0", *lstm_to_torch(kernel, bias, D))
        tx = _t(xs, True)
        want_out, (_, want_c) = lstm(tx)
        backward([want_out[:, -1], want_c[0]], heads)
        what = f"{cell_class.__name__}, {blocks} lstm_block"
        close(got[0], want_out[:, -1], f"{what}: h_T")
        close(got[1], want_c[0], f"{what}: c_T")
        close(grads[0], tx.grad, f"{what}: d x")
        want_kernel, want_bias = lstm_grads_to_tf(*torch_grads(lstm, "l0"))
        close(grads[1], want_kernel, f"{what}: d kernel")
        close(grads[2], want_bias, f"{what}: d bias")


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


# -- DropoutWrapper ---------------------------------------------------------------------------
def _two_lstms(wrapper_args, steps=T):
    """The same LSTM weights run plain (scope "plain") and wrapped (scope "wrapped")."""
    x = tf.placeholder(tf.float32, [steps, B, D])
    plain = rnn.static_rnn(rnn.BasicLSTMCell(H), tf.unstack(x), dtype=tf.float32, scope="plain")
    wrapped = rnn.static_rnn(rnn.DropoutWrapper(rnn.BasicLSTMCell(H), **wrapper_args),
                             tf.unstack(x), dtype=tf.float32, scope="wrapped")
    return x, plain, wrapped


def _run_same_weights(x, fetches, feeds=None, plan_memory=True):
    kernel, bias = _lstm_weights()
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for scope in ("plain", "wrapped"):
            sess.run([tf.assign(_variable(f"{scope}/basic_lstm_cell/kernel"), kernel),
                      tf.assign(_variable(f"{scope}/basic_lstm_cell/bias"), bias)])
        return sess.run(fetches, {x: _rand(int(x.get_shape()[0]), B, D, seed=3),
                                  **(feeds or {})})


def test_dropout_wrapper_keep_one_is_the_cell(plan_memory):
    keep = tf.placeholder(tf.float32, [])
    x, plain, wrapped = _two_lstms({"input_keep_prob": 1.0, "output_keep_prob": keep,
                                    "state_keep_prob": tf.constant(1.0)})
    assert [v.op.name for v in tf.trainable_variables()][2:] == [
        "wrapped/basic_lstm_cell/kernel", "wrapped/basic_lstm_cell/bias"]  # no scope of its own
    dropouts = [n for n in tf.get_default_graph().nodes_by_name.values() if n.kind == "dropout"]
    assert len(dropouts) == T  # constant 1.0 adds no op; the fed keep_prob one per step
    got = _run_same_weights(x, [tf.stack(plain[0]), plain[1].c, tf.stack(wrapped[0]),
                                wrapped[1].c], {keep: 1.0}, plan_memory)
    # plain runs as one lstm_block, wrapped unrolled: equal up to float32's rounding
    np.testing.assert_allclose(got[0], got[2], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], got[3], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", [None, 3])
def test_dropout_wrapper_scales_outputs_and_keeps_lstm_memory(seed, plan_memory):
    x, plain, wrapped = _two_lstms({"output_keep_prob": 0.5, "seed": seed})
    ref, ref_state, out, state = _run_same_weights(
        x, [tf.stack(plain[0]), plain[1], tf.stack(wrapped[0]), wrapped[1]],
        plan_memory=plan_memory)
    kept = out != 0
    np.testing.assert_allclose(out[kept], 2 * ref[kept], rtol=1e-5)
    assert 0.3 < kept.mean() < 0.7
    # a new mask at each step; with a seed every step's dropout has the same op seed, and so
    # (as in TensorFlow, whose random ops with equal seeds draw the same numbers) the same mask
    same_mask = all((kept[t] == kept[0]).all() for t in range(1, T))
    assert same_mask == (seed is not None)
    # output dropout leaves the state be (plain is one lstm_block, wrapped unrolled: equal up
    # to float32's rounding)
    np.testing.assert_allclose(state.c, ref_state.c, rtol=1e-5, atol=1e-6)
    tf.reset_default_graph()
    x, plain, wrapped = _two_lstms({"state_keep_prob": 0.5}, steps=1)
    (ref_c, ref_h), (c, h) = _run_same_weights(x, [plain[1], wrapped[1]])
    np.testing.assert_allclose(c, ref_c, rtol=1e-5, atol=1e-6)  # c is never dropped (TF's
    # default filter)
    kept = h != 0
    np.testing.assert_allclose(h[kept], 2 * ref_h[kept], rtol=1e-5)
    assert 0 < kept.sum() < kept.size


def test_dropout_wrapper_seeds_are_tf_salted_md5():
    cell = rnn.DropoutWrapper(rnn.BasicRNNCell(H), output_keep_prob=0.5, seed=5)
    import hashlib
    expected = int(hashlib.md5(b"5output_0").hexdigest()[:8], 16) & 0x7FFFFFFF
    assert cell._gen_seed("output", 0) == expected
    assert rnn.DropoutWrapper(rnn.BasicRNNCell(H))._gen_seed("output", 0) is None


# -- names, initial values, zero states ---------------------------------------------------------
def test_variable_names_and_shapes_as_tensorflow():
    x = tf.placeholder(tf.float32, [None, T, D])
    tf.nn.dynamic_rnn(rnn.BasicLSTMCell(H), x, dtype=tf.float32)
    # a second cell in the same default scope "rnn": TF closes the sub-scopes of "rnn" on
    # leaving it, so the cell's default name is basic_lstm_cell again and its kernel exists
    with pytest.raises(ValueError, match="rnn/basic_lstm_cell/kernel already exists"):
        tf.nn.dynamic_rnn(rnn.BasicLSTMCell(H), x, dtype=tf.float32)
    tf.nn.dynamic_rnn(rnn.GRUCell(H), x, dtype=tf.float32, scope="gru")
    tf.nn.dynamic_rnn(rnn.BasicRNNCell(H), x, dtype=tf.float32, scope="simple")
    tf.nn.dynamic_rnn(rnn.LSTMCell(H, use_peepholes=True, num_proj=2), x, dtype=tf.float32,
                      scope="full")
    stack = rnn.MultiRNNCell([rnn.DropoutWrapper(rnn.BasicLSTMCell(H), output_keep_prob=0.9),
                              rnn.GRUCell(3)])
    tf.nn.dynamic_rnn(stack, x, dtype=tf.float32, scope="deep")
    found = {v.op.name: tuple(v.get_shape().as_list()) for v in tf.trainable_variables()}
    assert found == {
        "rnn/basic_lstm_cell/kernel": (D + H, 4 * H), "rnn/basic_lstm_cell/bias": (4 * H,),
        "gru/gru_cell/gates/kernel": (D + H, 2 * H), "gru/gru_cell/gates/bias": (2 * H,),
        "gru/gru_cell/candidate/kernel": (D + H, H), "gru/gru_cell/candidate/bias": (H,),
        "simple/basic_rnn_cell/kernel": (D + H, H), "simple/basic_rnn_cell/bias": (H,),
        "full/lstm_cell/kernel": (D + 2, 4 * H), "full/lstm_cell/bias": (4 * H,),
        "full/lstm_cell/w_f_diag": (H,), "full/lstm_cell/w_i_diag": (H,),
        "full/lstm_cell/w_o_diag": (H,), "full/lstm_cell/projection/kernel": (H, 2),
        "deep/multi_rnn_cell/cell_0/basic_lstm_cell/kernel": (D + H, 4 * H),
        "deep/multi_rnn_cell/cell_0/basic_lstm_cell/bias": (4 * H,),
        "deep/multi_rnn_cell/cell_1/gru_cell/gates/kernel": (H + 3, 6),
        "deep/multi_rnn_cell/cell_1/gru_cell/gates/bias": (6,),
        "deep/multi_rnn_cell/cell_1/gru_cell/candidate/kernel": (H + 3, 3),
        "deep/multi_rnn_cell/cell_1/gru_cell/candidate/bias": (3,)}
    assert stack.weights == [v for v in tf.trainable_variables() if v.op.name.startswith("deep")]


def test_cells_called_directly_take_tf_scopes_and_initial_values():
    x, h = tf.placeholder(tf.float32, [B, D]), tf.placeholder(tf.float32, [B, H])
    gru = rnn.GRUCell(H)
    first, _ = gru(x, h)
    gru(x, first)  # reuses the variables
    lstm = rnn.BasicLSTMCell(H)
    lstm(x, lstm.zero_state(B, tf.float32), scope="mine")
    names = [v.op.name for v in tf.trainable_variables()]
    assert names == ["gru_cell/gates/kernel", "gru_cell/gates/bias", "gru_cell/candidate/kernel",
                     "gru_cell/candidate/bias", "mine/kernel", "mine/bias"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        gates, gate_bias, candidate_bias, kernel, bias = sess.run(
            [_variable(n) for n in ("gru_cell/gates/kernel", "gru_cell/gates/bias",
                                    "gru_cell/candidate/bias", "mine/kernel", "mine/bias")])
    np.testing.assert_array_equal(gate_bias, np.ones(2 * H))  # TF: r and u start open
    np.testing.assert_array_equal(candidate_bias, np.zeros(H))
    np.testing.assert_array_equal(bias, np.zeros(4 * H))
    for k, fan_out in ((gates, 2 * H), (kernel, 4 * H)):  # glorot-uniform kernels
        limit = np.sqrt(6 / (D + H + fan_out))
        assert np.abs(k).max() <= limit and np.abs(k).max() > 0.5 * limit


def test_zero_state_static_and_dynamic_batch():
    cell = rnn.MultiRNNCell([rnn.BasicLSTMCell(H), rnn.GRUCell(3)])
    static = cell.zero_state(4, tf.float32)
    assert [s.get_shape().as_list() for s in rnn_flatten(static)] == [[4, H], [4, H], [4, 3]]
    x = tf.placeholder(tf.float32, [None, T, D])
    dynamic = cell.zero_state(tf.shape(x)[0], tf.float32)
    concatenated = rnn.BasicLSTMCell(H, state_is_tuple=False).zero_state(tf.shape(x)[0],
                                                                         tf.float32)
    with tf.Session() as sess:
        got = sess.run(rnn_flatten(dynamic) + [concatenated], {x: np.ones((6, T, D))})
    assert [g.shape for g in got] == [(6, H), (6, H), (6, 3), (6, 2 * H)]
    assert not any(g.any() for g in got)


def rnn_flatten(structure):
    from tinyflow.frontend.nn.rnn_cell import flatten
    return flatten(structure)


def test_concatenated_state_equals_tuple_state(plan_memory):
    x = tf.placeholder(tf.float32, [B, T, D])
    cells = [rnn.MultiRNNCell([rnn.LSTMCell(H, state_is_tuple=False, num_proj=3),
                               rnn.BasicLSTMCell(H, state_is_tuple=False)],
                              state_is_tuple=False),
             rnn.MultiRNNCell([rnn.LSTMCell(H, num_proj=3), rnn.BasicLSTMCell(H)])]
    (out_a, state_a), (out_b, state_b) = [
        tf.nn.dynamic_rnn(c, x, dtype=tf.float32, scope=s) for c, s in zip(cells, "ab")]
    assert state_a.get_shape().as_list() == [B, H + 3 + 2 * H]
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for va, vb in zip(tf.trainable_variables()[:5], tf.trainable_variables()[5:]):
            sess.run(tf.assign(vb, va))
        got = sess.run([out_a, state_a, out_b] + rnn_flatten(state_b), {x: _rand(B, T, D)})
    np.testing.assert_array_equal(got[0], got[2])
    np.testing.assert_array_equal(got[1], np.concatenate(got[3:], axis=1))


# -- tf.contrib and the errors -------------------------------------------------------------------
def test_contrib_rnn_is_tf_contrib_rnn():
    from tinyflow.frontend.contrib import rnn as contrib_rnn
    assert tf.contrib.rnn is contrib_rnn
    assert contrib_rnn.BasicLSTMCell is tf.nn.rnn_cell.BasicLSTMCell
    assert contrib_rnn.static_rnn is tf.nn.static_rnn
    assert contrib_rnn.static_bidirectional_rnn is tf.nn.static_bidirectional_rnn
    for name in ("LSTMCell", "GRUCell", "MultiRNNCell", "DropoutWrapper", "BasicRNNCell",
                 "LSTMStateTuple", "ResidualWrapper", "DeviceWrapper"):
        assert getattr(contrib_rnn, name) is getattr(tf.nn.rnn_cell, name)
    with pytest.raises(AttributeError, match="tf.contrib.learn is not supported by TinyFlow"):
        _ = tf.contrib.learn
    with pytest.raises(AttributeError, match="tf.contrib.rnn.GridLSTMCell is not supported"):
        _ = contrib_rnn.GridLSTMCell
    with pytest.raises(AttributeError, match="tf.nn.rnn_cell.LSTMBlockCell is not supported"):
        _ = tf.nn.rnn_cell.LSTMBlockCell  # contrib's, not tf.nn.rnn_cell's


def test_inputs_of_the_wrong_depth_name_the_cell_and_shapes():
    x = tf.placeholder(tf.float32, [None, T, D])
    cell = rnn.BasicLSTMCell(H)
    tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    wider = tf.placeholder(tf.float32, [None, T, D + 1])
    with pytest.raises(ValueError, match=r"BasicLSTMCell 'rnn/basic_lstm_cell' was built for "
                       r"inputs \[batch, 5\] \(kernel \[9, 16\]\); called again with inputs "
                       r"of shape \(\?, 6\)"):
        tf.nn.dynamic_rnn(cell, wider, dtype=tf.float32)
    # a new cell on the existing variables (reuse=True)
    with tf.variable_scope("rnn"), pytest.raises(
            ValueError, match=r"BasicLSTMCell 'rnn/basic_lstm_cell' with inputs of depth 6 "
            r"needs kernel of shape \[10, 16\].*found shape \(9, 16\)"):
        rnn.BasicLSTMCell(H, reuse=True)(wider[:, 0],
                                         rnn.BasicLSTMCell(H).zero_state(2, tf.float32))


def test_unknown_time_steps_and_lengths_loop_and_bad_lengths_are_errors():
    """An unknown number of steps or fed lengths make dynamic_rnn a loop (their values:
    tests/test_dynamic_rnn.py); lengths that cannot fit are errors."""
    x = tf.placeholder(tf.float32, [None, None, D])
    loop, _ = tf.nn.dynamic_rnn(rnn.GRUCell(H), x, dtype=tf.float32)
    assert loop.get_shape().as_list() == [None, None, H]
    assert [op.type for op in tf.get_default_graph().get_operations()].count("While") == 1
    x = tf.placeholder(tf.float32, [B, T, D])
    lengths = tf.placeholder(tf.int32, [B])
    fed, _ = tf.nn.dynamic_rnn(rnn.GRUCell(H), x, sequence_length=lengths, dtype=tf.float32,
                               scope="fed")
    assert fed.get_shape().as_list() == [B, T, H]
    with pytest.raises(ValueError, match="sequence_length has 2 entries for a batch of 3"):
        tf.nn.dynamic_rnn(rnn.GRUCell(H), x, sequence_length=[T, T], dtype=tf.float32)
    with pytest.raises(ValueError, match="sequence_length has 2 entries for a batch of 3"):
        rnn.static_rnn(rnn.GRUCell(H), tf.unstack(x, axis=1), sequence_length=[T, 20],
                       dtype=tf.float32)
    with pytest.raises(ValueError, match="dtype must be specified"):
        tf.nn.dynamic_rnn(rnn.GRUCell(H), x, scope="no_dtype")


def test_bad_arguments_are_clear_errors():
    x = tf.placeholder(tf.float32, [B, D])
    with pytest.raises(ValueError, match="num_unit_shards .*not supported by TinyFlow"):
        rnn.LSTMCell(H, num_unit_shards=2)
    with pytest.raises(ValueError, match="variational_recurrent=True .*not supported by "
                       "TinyFlow"):
        rnn.DropoutWrapper(rnn.GRUCell(H), variational_recurrent=True, dtype=tf.float32)
    with pytest.raises(ValueError, match="output_keep_prob must be between 0 and 1: 1.5"):
        rnn.DropoutWrapper(rnn.GRUCell(H), output_keep_prob=1.5)
    with pytest.raises(TypeError, match="'cell' .* is not an RNNCell"):
        rnn.static_rnn(lambda x, s: (x, s), [x], dtype=tf.float32)
    with pytest.raises(ValueError, match="at least one cell"):
        rnn.MultiRNNCell([])
    with pytest.raises(ValueError, match=r"GRUCell 'gru_cell': RNN cell only supports floating "
                       r"point inputs, but saw dtype: int32"):
        cell = rnn.GRUCell(H)
        cell(tf.placeholder(tf.int32, [B, D]), cell.zero_state(B, tf.float32))
    with pytest.raises(ValueError, match=r"inputs must be 2-D \[batch, depth\], got shape "
                       r"\(3, 2, 5\)"):
        cell = rnn.GRUCell(H)
        cell(tf.placeholder(tf.float32, [B, 2, D]), cell.zero_state(B, tf.float32))
    with pytest.raises(ValueError, match=r"expects the state \(c, h\)"):
        cell = rnn.BasicLSTMCell(H)
        cell(x, tf.zeros([B, 2 * H]))


# -- memory planning of an unrolled training step ------------------------------------------------
def test_memory_plan_reuses_the_unrolled_steps_storage():
    x = tf.placeholder(tf.float32, [None, T, D])
    _, state = tf.nn.dynamic_rnn(rnn.BasicLSTMCell(H), x, dtype=tf.float32)
    loss = tf.reduce_sum(tf.square(state.h))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    feed = {x: _rand(B, T, D)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        forward, step = sess.memory_plan(state.h, feed), sess.memory_plan(train, feed)
        before = sess.run(loss, feed)
        for _ in range(3):
            sess.run(train, feed)
        assert sess.run(loss, feed) < before
    # forward only: a step's temporaries die with it, so the 28 steps share a few buffers
    assert forward.planned_bytes < 0.2 * forward.naive_bytes
    # training keeps what the backward pass reads, and still shares the rest
    assert step.planned_bytes < 0.6 * step.naive_bytes


@pytest.mark.parametrize("fetch_c", [False, True])
def test_forward_only_lstm_block_keeps_one_step_of_what_nothing_reads(fetch_c):
    # static_rnn's lstm_block keeps every step's c, gates and tanh(c) for its gradient; scoring
    # reads none (KeepOneStep): the plan shrinks, the values stay bit for bit those of the
    # unoptimised graph (Session(optimize=False)) and of no memory planning
    tf.set_random_seed(3)
    x = tf.placeholder(tf.float32, [None, T, D])
    outputs, state = tf.nn.static_rnn(rnn.BasicLSTMCell(H), tf.unstack(x, axis=1),
                                      dtype=tf.float32)
    logits = tf.layers.dense(outputs[-1], 3)
    fetches = [logits, state.c] if fetch_c else [logits]
    feed = {x: _rand(50, T, D)}
    got, plans = [], []
    for options in ({}, {"optimize": False}, {"plan_memory": False}):
        with tf.Session(**options) as sess:
            sess.run(tf.global_variables_initializer())
            got.append(sess.run(fetches, feed))
            plans.append(sess.memory_plan(fetches, feed).planned_bytes)
    for other in got[1:]:
        for a, b in zip(got[0], other):
            np.testing.assert_array_equal(a, b)
    # unoptimised: h, c, tanh(c) [T, 50, H] and the gates [T, 50, 4H] for every step
    steps_bytes = T * 50 * 7 * H * 4
    assert plans[1] - plans[0] >= (0.6 if fetch_c else 0.8) * steps_bytes
    # a document's attr naming h (output 0), which every step needs: refused as it is made
    args = [tf.zeros([T, 2, D]), tf.zeros([2, H]), tf.zeros([2, H]), tf.zeros([D + H, 4 * H]),
            tf.zeros([4 * H])]
    with pytest.raises(ShapeError, match="one_step must list outputs among 1, 2, 3"):
        create_op("lstm_block", *args, one_step=(0, 1))


class ScaledCell(tf.nn.rnn_cell.RNNCell):
    """A user's TF-1 cell making its variable with tf.get_variable inside call:
    h' = tanh(x @ W + h * a)."""

    def __init__(self, units):
        super().__init__()
        self._units = units

    @property
    def state_size(self):
        return self._units

    @property
    def output_size(self):
        return self._units

    def call(self, inputs, state):
        w = tf.get_variable("w", [D, self._units])
        a = tf.get_variable("a", [self._units], initializer=tf.constant_initializer(0.5))
        h = tf.tanh(tf.matmul(inputs, w) + state * a)
        return h, h


def test_a_users_cell_with_get_variable_in_call():
    x = tf.placeholder(tf.float32, [B, T, D])
    cell = ScaledCell(H)
    out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    assert [v.op.name for v in tf.trainable_variables()] == ["rnn/scaled_cell/w",
                                                            "rnn/scaled_cell/a"]
    from tinyflow.frontend.nn.rnn_cell import _snake_case
    assert _snake_case("_Private2DCell") == "private__private2d_cell"  # as Keras
    assert (cell.name, cell.scope_name) == ("scaled_cell", "rnn/scaled_cell")
    xs = _rand(B, T, D)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w, got = sess.run([_variable("rnn/scaled_cell/w"), out], {x: xs})
    h = np.zeros((B, H))
    for t in range(T):
        h = np.tanh(xs[:, t] @ w + 0.5 * h)
        np.testing.assert_allclose(got[:, t], h, rtol=1e-5, atol=1e-6)
