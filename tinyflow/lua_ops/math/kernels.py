"""Kernels of the math bodies (tinyflow/ops/math.py): tf.confusion_matrix, the running
logsumexp of tf.math.cumulative_logsumexp, tf.bitwise's shifts and tf.bitcast."""
from __future__ import annotations

import torch

from ..nn.kernels import ids_buffer, read_ids
from ..torch_table import lua_dim

__all__ = ["bitcast", "bitwise", "confusion_matrix", "ids_buffer", "invert", "logcumsumexp",
           "next_after", "shift"]


def confusion_matrix(res, labels, predictions, weights, rows, cols):
    """res (n, n) = zeros with weights[i] added at (labels[i], predictions[i]); rows, cols: flat
    int64 scratch from ``ids_buffer``."""
    classes = res.shape[0]
    read_ids(rows, labels, classes, "label")
    read_ids(cols, predictions, classes, "prediction")
    rows.mul_(classes).add_(cols)
    res.zero_()
    res.view(-1).index_add_(0, rows, weights.reshape(-1))


def logcumsumexp(res, x, dim):
    """res = log(cumsum(exp(x))) along the 1-based ``dim``, as the torch table's cumsum."""
    torch.logcumsumexp(x, lua_dim(dim), out=res)


def next_after(res, a, b):
    """res = the next float after a towards b, broadcasting."""
    torch.nextafter(a, b, out=res)


def bitwise(res, a, b, kind):
    """res = a & b, a | b or a ^ b (``kind`` "and", "or", "xor"), numpy broadcasting."""
    getattr(torch, f"bitwise_{kind}")(a, b, out=res)


def invert(res, x):
    """res = ~x."""
    torch.bitwise_not(x, out=res)


def shift(res, a, b, left, scratch):
    """res = a << b (``left``) or a >> b, b clamped to [0, bits - 1] first as TF's kernel;
    ``scratch``: b's shape and dtype."""
    torch.clamp(b, 0, torch.iinfo(a.dtype).bits - 1, out=scratch)
    (torch.bitwise_left_shift if left else torch.bitwise_right_shift)(a, scratch, out=res)


def bitcast(res, x):
    """res's bytes = x's bytes (TF's Bitcast: the plan gave both the same byte size)."""
    res.view(-1).view(torch.uint8).copy_(x.contiguous().view(-1).view(torch.uint8))
