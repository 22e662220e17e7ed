"""Kernels of the sampling bodies (tinyflow/ops/sampling.py): gamma and Poisson draws from a
node's generator (None: torch's global one), each parameter broadcast over the draws, and the
gamma sample's derivative in alpha.  Parameters no law has draw NaN rather than reach torch's
samplers, which refuse them (Poisson) or loop or overflow on them (a rate of 1e30)."""
from __future__ import annotations

import torch

__all__ = ["gamma", "gamma_grad", "poisson"]

_LARGEST_RATE = 2.0 ** 62  # torch's int64 Poisson sampler overflows past it


def gamma(res, alpha, gen):
    alpha = alpha.to(res.dtype).expand(res.shape)
    bad = torch.isnan(alpha) | (alpha < 0)
    draws = torch._standard_gamma(torch.where(bad, torch.ones_like(alpha), alpha),
                                  generator=gen)
    res.copy_(torch.where(bad, torch.full_like(draws, float("nan")), draws))


def poisson(res, rate, gen):
    rate = rate.double().expand(res.shape)
    bad = ~torch.isfinite(rate) | (rate < 0)
    huge = rate > _LARGEST_RATE  # a spread of 1e-9 of the mean: the mean itself
    safe = torch.where(bad | huge, torch.zeros_like(rate), rate)
    draws = torch.poisson(safe, generator=gen)
    draws = torch.where(huge, rate, draws)
    res.copy_(torch.where(bad, torch.full_like(draws, float("nan")), draws))


def gamma_grad(res, alpha, sample):
    alpha = alpha.to(res.dtype).expand(res.shape)
    res.copy_(torch._standard_gamma_grad(alpha.contiguous(), sample.to(res.dtype)))
