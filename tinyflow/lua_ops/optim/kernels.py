"""Kernels of the optimizer bodies (tinyflow/ops/optim.py): torch's fused Adam step."""
from __future__ import annotations

import torch

__all__ = ["adam_update"]


def adam_update(var, m, v, grad, step, lr, beta1, beta2, eps):
    """One Adam step on var, m and v in place; step: the step count, a scalar tensor."""
    torch._fused_adam_([var], [grad], [m], [v], [], [step], lr=lr, beta1=beta1, beta2=beta2,
                       weight_decay=0.0, eps=eps, amsgrad=False, maximize=False)
