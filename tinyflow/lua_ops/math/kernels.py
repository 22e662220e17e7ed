"""Kernels of the math bodies (tinyflow/ops/math.py): tf.confusion_matrix, the running
logsumexp of tf.math.cumulative_logsumexp."""
from __future__ import annotations

import torch

from ..nn.kernels import ids_buffer, read_ids
from ..torch_table import lua_dim

__all__ = ["confusion_matrix", "ids_buffer", "logcumsumexp", "next_after"]


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
