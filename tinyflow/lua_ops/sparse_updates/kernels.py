"""Kernels of the sparse updates (tinyflow/ops/sparse_updates.py, TF's ``_apply_sparse``): the
rows an IndexedSlices gradient names, deduplicated, go through the optimizer's rule (the dense
kernels' steps of tinyflow/lua_ops/optim/kernels.py for the proximal ones and FTRL) and back;
the other rows, and their slots, are left as they were."""
from __future__ import annotations

import torch

from ..array.kernels import check_range
from ..optim.kernels import adam_update, ftrl, proximal_adagrad, proximal_sgd

__all__ = ["sparse_adam", "sparse_scatter_sub", "sparse_update"]


def _deduplicated(values, indices, rows):
    """TF's ``_deduplicate_indexed_slices``: the distinct indices (checked in [0, rows), as
    TF's SparseApply kernels) and each one's values summed in the order given (TF's
    unsorted_segment_sum).  Allocates what the step's rows need: their number is the data's."""
    flat = indices.reshape(-1).long()
    check_range(flat, rows, "indices")
    unique, position = torch.unique(flat, return_inverse=True)
    summed = values.new_zeros((unique.numel(),) + tuple(values.shape[1:]))
    return unique, summed.index_add_(0, position, values)


def _momentum(var, accum, grad, lr, momentum, nesterov):
    accum.mul_(momentum).add_(grad)
    var.sub_(grad * lr + accum * momentum * lr if nesterov else accum * lr)


def _rmsprop(var, ms, mom, grad, lr, rho, momentum, epsilon):
    ms.mul_(rho).add_(grad * grad * (1 - rho))
    mom.mul_(momentum).add_(torch.rsqrt(ms + epsilon) * lr * grad)
    var.sub_(mom)


def _centered_rmsprop(var, mg, ms, mom, grad, lr, rho, momentum, epsilon):
    ms.mul_(rho).add_(grad * grad * (1 - rho))
    mg.mul_(rho).add_(grad * (1 - rho))
    mom.mul_(momentum).add_(torch.rsqrt(ms - mg * mg + epsilon) * lr * grad)
    var.sub_(mom)


def _adagrad(var, accum, grad, lr):
    accum.addcmul_(grad, grad)
    var.sub_(grad * lr * torch.rsqrt(accum))


def _adadelta(var, accum, accum_update, grad, lr, rho, epsilon):
    accum.mul_(rho).add_(grad * grad * (1 - rho))
    update = torch.sqrt(accum_update + epsilon) * torch.rsqrt(accum + epsilon) * grad
    accum_update.mul_(rho).add_(update * update * (1 - rho))
    var.sub_(update * lr)


# each rule: (rows of var, rows of each slot, summed gradient rows, lr, **attrs), in place on
# the rows; the proximal ones and FTRL run the dense kernel's step on them
_ROW_RULES = {
    "momentum": _momentum, "rmsprop": _rmsprop, "centered_rmsprop": _centered_rmsprop,
    "adagrad": _adagrad, "adadelta": _adadelta,
    "proximal_sgd": lambda var, grad, lr, **attrs: proximal_sgd(var, grad, lr, **attrs)(),
    "proximal_adagrad": lambda var, accum, grad, lr, **attrs: proximal_adagrad(
        var, accum, grad, lr, **attrs)(),
    "ftrl": lambda var, accum, linear, grad, lr, **attrs: ftrl(
        var, accum, linear, grad, lr, **attrs)(),
}


def sparse_update(rule, state, values, indices, lr, attrs):
    """Setup of TF's sparse update ``rule`` (a key of ``_ROW_RULES``) of ``state`` (a Lua
    array: the variable, then its slots; in place) from the slices ``values`` at rows
    ``indices``: the duplicates summed, the rule run on copies of the rows named, written
    back.  ``lr`` a number or a scalar tensor; ``attrs`` a Lua table of the rule's numbers."""
    state, apply = list(state.values()), _ROW_RULES[rule]
    attrs = {key: attrs[key] for key in attrs}
    if not isinstance(lr, torch.Tensor):
        lr = torch.tensor(lr, dtype=state[0].dtype, device=state[0].device)

    def step():
        unique, grad = _deduplicated(values, indices, state[0].shape[0])
        rows = [tensor.index_select(0, unique) for tensor in state]
        apply(*rows, grad, lr, **attrs)
        for tensor, row in zip(state, rows):
            tensor.index_copy_(0, unique, row)
    return step


def sparse_scatter_sub(var, values, indices, lr):
    """Setup of TF's sparse gradient descent, ``scatter_sub(var, indices, lr * values)``: a
    row named twice takes both (no deduplication, as TF's)."""
    def step():
        flat = indices.reshape(-1).long()
        check_range(flat, var.shape[0], "indices")
        var.index_add_(0, flat, values * lr, alpha=-1)
    return step


def sparse_adam(var, m, v, values, indices, beta1_power, beta2_power, lr, beta1, beta2, eps):
    """Setup of TF 1.15's sparse Adam (``_apply_sparse_shared``): every row of m and v decays
    (``m *= beta1``), the summed slices are added at their rows (``m[i] += (1 - beta1) * g``),
    and every row of var moves by ``lr_t * m / (sqrt(v) + eps)``: ApplyAdam's step on a
    gradient that is 0 but at those rows, one buffer of var's size made here, written at the
    rows before the step and cleared there after it (no dense gradient computed per step)."""
    rows = torch.zeros_like(var)
    dense_step = adam_update(var, m, v, rows, beta1_power, beta2_power, lr, beta1, beta2, eps)

    def step():
        unique, grad = _deduplicated(values, indices, var.shape[0])
        rows.index_copy_(0, unique, grad)
        dense_step()
        rows.index_fill_(0, unique, 0)
    return step
