"""Kernels of the optimizer bodies (tinyflow/ops/optim.py): TensorFlow's Adam step (on torch's
fused kernel), the proximal steps and FTRL's, each a setup making its scratch tensors and
returning the step."""
from __future__ import annotations

import torch

__all__ = ["adam_update", "ftrl", "proximal_adagrad", "proximal_sgd"]


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
