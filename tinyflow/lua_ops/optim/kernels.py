"""Kernels of the optimizer bodies (tinyflow/ops/optim.py): TensorFlow's Adam step (on torch's
fused kernel), the proximal steps and FTRL's, each a setup making its scratch tensors and
returning the step; and the sparse updates (TF's ``_apply_sparse``), which run a rule on the
rows an IndexedSlices gradient names and leave the other rows, and their slots, untouched."""
from __future__ import annotations

import torch

from ..array.kernels import check_range

__all__ = ["adam_update", "ftrl", "proximal_adagrad", "proximal_sgd", "sparse_adam",
           "sparse_scatter_sub", "sparse_update"]


def adam_update(var, m, v, grad, beta1_power, beta2_power, lr, beta1, beta2, eps):
    """Setup of TensorFlow's ApplyAdam step on var, m and v (in place), ``var -= lr_t * m /
    (sqrt(v) + eps)``, ``lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)``: torch's
    fused Adam kernel with its own bias correction off (a step count at which every power
    ``beta ** t`` is 0) at the learning rate lr_t; the powers are scalar tensors."""
    steps = [torch.tensor(2.0 ** 60, device=var.device)]  # stays 2**60 after += 1
    one, lr = _scalars(var, 1.0, lr)
    # the betas and epsilon in var's type, as TF's kernel takes them: torch computes 1 - beta
    # from the number it is given, and 1 - float32(0.999) is not float32(1 - 0.999)
    beta1, beta2, eps = (torch.tensor(x, dtype=var.dtype).item() for x in (beta1, beta2, eps))

    def step():  # lr_t in var's type, as TF's kernel
        power1, power2 = beta1_power.to(var.dtype), beta2_power.to(var.dtype)
        rate = lr * torch.sqrt(one - power2) / (one - power1)
        torch._fused_adam_([var], [grad], [m], [v], [], steps, lr=rate, beta1=beta1,
                           beta2=beta2, weight_decay=0.0, eps=eps, amsgrad=False,
                           maximize=False)
    return step


def _scalars(var, *values):
    """Numbers as 0-d tensors of var's dtype (a tensor learning rate as it is): TF's kernels
    compute ``lr * l1``, ``1 + lr * l2`` in the variable's type, and so must these."""
    return [v if isinstance(v, torch.Tensor) else torch.tensor(v, dtype=var.dtype,
                                                               device=var.device)
            for v in values]


def _shrink(var, prox, threshold, use_l1: bool, denominator) -> None:
    """var = sign(prox) * max(|prox| - threshold, 0) / denominator (prox is overwritten);
    without l1, var = prox / denominator (TF's two branches)."""
    if use_l1:
        torch.abs(prox, out=var)
        var.sub_(threshold).clamp_(min=0).mul_(prox.sign_())
    else:
        var.copy_(prox)
    var.div_(denominator)


def proximal_sgd(var, grad, lr, l1, l2):
    """Setup of ApplyProximalGradientDescent's step on var (in place); lr a number or a
    scalar tensor."""
    prox, use_l1 = torch.empty_like(var), l1 > 0
    lr, l1, l2 = _scalars(var, lr, l1, l2)

    def step():
        torch.sub(var, torch.mul(grad, lr, out=prox), out=prox)
        _shrink(var, prox, lr * l1, use_l1, 1 + lr * l2)
    return step


def proximal_adagrad(var, accum, grad, lr, l1, l2):
    """Setup of ApplyProximalAdagrad's step on var and accum (in place)."""
    rate, prox, threshold = (torch.empty_like(var) for _ in range(3))
    use_l1, (lr, l1, l2) = l1 > 0, _scalars(var, lr, l1, l2)

    def step():
        accum.addcmul_(grad, grad)
        torch.rsqrt(accum, out=rate).mul_(lr)  # Adagrad's rate per element
        torch.addcmul(var, grad, rate, value=-1.0, out=prox)
        if use_l1:
            torch.mul(rate, l1, out=threshold)
        _shrink(var, prox, threshold, use_l1, rate.mul_(l2).add_(1.0))
    return step


def ftrl(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power):
    """Setup of ApplyFtrl's (ApplyFtrlV2's) step on var, accum and linear (in place)."""
    new_accum, scratch = torch.empty_like(var), torch.empty_like(var)
    kept, zero = torch.empty_like(var, dtype=torch.bool), torch.zeros((), dtype=var.dtype,
                                                                          device=var.device)
    power, shrinking = -lr_power, l2_shrinkage > 0
    lr, l1, l2_twice, shrinkage_twice = _scalars(var, lr, l1, 2 * l2, 2 * l2_shrinkage)

    def root(out, x):  # x ** power, TF's special case sqrt for power 0.5
        return torch.sqrt(x, out=out) if power == 0.5 else torch.pow(x, power, out=out)

    def step():
        torch.addcmul(accum, grad, grad, out=new_accum)
        root(scratch, new_accum).sub_(root(accum, accum)).div_(lr).mul_(var)
        linear.add_(grad).sub_(scratch)
        if shrinking:
            linear.addcmul_(var, shrinkage_twice)
        root(scratch, new_accum).div_(lr).add_(l2_twice)  # y
        torch.sign(linear, out=accum).mul_(l1).sub_(linear).div_(scratch)  # x / y
        torch.gt(torch.abs(linear, out=scratch), l1, out=kept)
        torch.where(kept, accum, zero, out=var)
        accum.copy_(new_accum)
    return step


# -- sparse updates -------------------------------------------------------------------------------
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
    (``m *= beta1``), the summed slices are added at their rows (``m[i] += (1 - beta1) * g``,
    ``v[i] += (1 - beta2) * g^2``), and every row of var moves by ``lr_t * m / (sqrt(v) +
    eps)``, as TF's composition of assign, scatter_add and assign_sub."""
    one, lr, beta1, beta2, eps = _scalars(var, 1.0, lr, beta1, beta2, eps)

    def step():
        unique, grad = _deduplicated(values, indices, var.shape[0])
        power1, power2 = beta1_power.to(var.dtype), beta2_power.to(var.dtype)
        rate = lr * torch.sqrt(one - power2) / (one - power1)
        m.mul_(beta1).index_add_(0, unique, grad * (one - beta1))
        v.mul_(beta2).index_add_(0, unique, grad * grad * (one - beta2))
        var.sub_(rate * m / (torch.sqrt(v) + eps))
    return step
