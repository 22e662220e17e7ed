"""test_ops' table for lstm_block (tinyflow/ops/rnn.py); its backward op is checked against
PyTorch's nn.LSTM by tests/test_rnn.py (values and every gradient, 28 steps)."""
import torch

from tinyflow.nnvm.symbol import create_op

SPECIAL_TESTS = {"_lstm_block_backward": ["test_rnn.py::test_basic_lstm_against_torch",
                                          "test_rnn.py::test_lstm_block_equals_the_unrolled_cells"]}


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


def add_cases(add):
    shapes = [(3, 2, 4), (2, 5), (2, 5), (9, 20), (20,)]
    for forget_bias in (1.0, 0.0):
        add("lstm_block", f"3-steps-forget-bias-{forget_bias}",
            lambda *inputs, fb=forget_bias: create_op("lstm_block", *inputs, forget_bias=fb),
            shapes, lambda *inputs, fb=forget_bias: torch_lstm(*inputs, fb))
    add("lstm_block", "1-step", lambda *inputs: create_op("lstm_block", *inputs),
        [(1, 3, 2), (3, 4), (3, 4), (6, 16), (16,)], lambda *inputs: torch_lstm(*inputs, 1.0))
