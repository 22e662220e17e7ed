"""test_ops' table for lstm_block and its backward op (tinyflow/ops/rnn.py): against the TF
cell's formulas written in torch, and each gradient rule against finite differences (the
backward op's is a second-order gradient through the LSTM); tests/test_rnn.py checks both
against PyTorch's nn.LSTM over 28 steps."""
import torch

from tinyflow.nnvm.symbol import create_op


def torch_lstm(x, c, h, kernel, bias, forget_bias):
    """TensorFlow's BasicLSTMCell over x's first axis, written out in torch: (h, c) of every
    step."""
    hs, cs = [], []
    for x_t in x:
        i, j, f, o = torch.split(torch.cat([x_t, h], 1) @ kernel + bias, kernel.shape[1] // 4, 1)
        c = c * torch.sigmoid(f + forget_bias) + torch.sigmoid(i) * torch.tanh(j)
        h = torch.tanh(c) * torch.sigmoid(o)
        hs.append(h)
        cs.append(c)
    return torch.stack(hs), torch.stack(cs)


def torch_lstm_backward(dh, dc, x, c0, h0, kernel, bias, h, c, acts, tanh_c):
    """_lstm_block_backward's formulas, every input independent (at the forward's values they
    are autograd's gradients: tests/test_rnn.py)."""
    units, depth = c0.shape[1], x.shape[2]
    dh_carry, dc_carry, grads = torch.zeros_like(h0), torch.zeros_like(c0), [None] * len(x)
    for t in reversed(range(len(x))):
        i, j, f, o = torch.split(acts[t], units, 1)
        c_prev = c0 if t == 0 else c[t - 1]
        dh_t = dh[t] + dh_carry
        dc_t = dc[t] + dc_carry + dh_t * o * (1 - tanh_c[t] ** 2)
        grads[t] = torch.cat([dc_t * j * i * (1 - i), dc_t * i * (1 - j * j),
                              dc_t * c_prev * f * (1 - f), dh_t * tanh_c[t] * o * (1 - o)], 1)
        dc_carry, dh_carry = dc_t * f, grads[t] @ kernel[depth:].T
    flat = torch.stack(grads).reshape(-1, 4 * units)
    h_prev = torch.cat([h0[None], h[:-1]]).reshape(-1, units)
    dkernel = torch.cat([x.reshape(-1, depth).T @ flat, h_prev.T @ flat])
    return torch.stack(grads), dc_carry, dh_carry, dkernel, flat.sum(0)


def add_cases(add):
    shapes = [(3, 2, 4), (2, 5), (2, 5), (9, 20), (20,)]
    for forget_bias in (1.0, 0.0):
        add("lstm_block", f"3-steps-forget-bias-{forget_bias}",
            lambda *inputs, fb=forget_bias: create_op("lstm_block", *inputs, forget_bias=fb),
            shapes, lambda *inputs, fb=forget_bias: torch_lstm(*inputs, fb))
    add("lstm_block", "1-step", lambda *inputs: create_op("lstm_block", *inputs),
        [(1, 3, 2), (3, 4), (3, 4), (6, 16), (16,)], lambda *inputs: torch_lstm(*inputs, 1.0))
    steps, batch, depth, units = 3, 2, 4, 5
    seq, state, gates = (steps, batch, units), (batch, units), (steps, batch, 4 * units)
    shapes = [seq, seq, (steps, batch, depth), state, state, (depth + units, 4 * units),
              (4 * units,), seq, seq, gates, seq]

    def backward_inputs(rng):  # activations in their ranges, (0, 1) and (-1, 1)
        values = [rng.standard_normal(shape) * 0.5 for shape in shapes]
        values[9], values[10] = rng.uniform(0.05, 0.95, gates), rng.uniform(-0.9, 0.9, seq)
        return values
    add("_lstm_block_backward", "3-steps",
        lambda *inputs: create_op("_lstm_block_backward", *inputs), ref=torch_lstm_backward,
        inputs=backward_inputs)
