"""Kernels of the elementwise bodies (tinyflow/ops/elemwise.py): numpy's tanh set up once, and
the activations' gradients from their outputs."""
from __future__ import annotations

import functools

import numpy as np
import torch

from ..torch_table import tanh_views

__all__ = ["relu_backward", "sigmoid_backward", "tanh_backward", "tanh_function"]


def tanh_function(res, a):
    """Setup: a function doing res = tanh(a) (numpy's, on views made once), or nil."""
    arrays = tanh_views(a, res)
    return None if arrays is None else functools.partial(np.tanh, arrays[0], out=arrays[1])


def relu_backward(res, g, y):  # res = g where y > 0 else 0
    torch.ops.aten.threshold_backward.grad_input(g, y, 0.0, grad_input=res)


def tanh_backward(res, g, y):  # res = g * (1 - y * y)
    torch.ops.aten.tanh_backward.grad_input(g, y, grad_input=res)


def sigmoid_backward(res, g, y):  # res = g * y * (1 - y)
    torch.ops.aten.sigmoid_backward.grad_input(g, y, grad_input=res)
