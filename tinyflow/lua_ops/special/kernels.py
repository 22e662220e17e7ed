"""Kernels of the special functions' bodies (tinyflow/ops/special.py): torch.special's, and
what torch lacks, the regularized incomplete beta function (a continued fraction) and the
derivative of igamma in a.  Each writes its result into ``res``; the functions torch lacks
compute in float64 and copy."""
from __future__ import annotations

import torch

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "betainc", "erfinv",
           "igamma", "igamma_grad_a", "igammac", "ndtri", "polygamma", "zeta"]

_NAN = float("nan")
_BETA_STEPS = 500  # the continued fraction's most terms: enough below a, b ~ 1e5
_BETA_TINY = 1e-300


def _unary(function):
    def kernel(res, x):
        function(x, out=res)
    return kernel


erfinv, ndtri = _unary(torch.special.erfinv), _unary(torch.special.ndtri)
bessel_i0, bessel_i0e = _unary(torch.special.i0), _unary(torch.special.i0e)
bessel_i1, bessel_i1e = _unary(torch.special.i1), _unary(torch.special.i1e)


def _gamma_domain(value, a, x):
    """NaN where a <= 0 or x < 0, as TF's (torch gives 1 at a = 0)."""
    return torch.where((a > 0) & (x >= 0), value, _NAN)


def igamma(res, a, x):
    res.copy_(_gamma_domain(torch.special.gammainc(a, x), a, x))


def igammac(res, a, x):
    res.copy_(_gamma_domain(torch.special.gammaincc(a, x), a, x))


def igamma_grad_a(res, a, x):
    """d P(a, x) / da by the 5-point central difference of P in float64 (truncation about
    h^4, rounding about 1e-16 / h: some 1e-11 relative), steps within a > 0."""
    a, x = torch.broadcast_tensors(a.double(), x.double())
    step = torch.minimum(1e-3 * torch.clamp(a, min=1.0), a / 4.0)
    step = torch.where(step > 0, step, 1.0)
    p = [torch.special.gammainc(a + k * step, x) for k in (-2, -1, 1, 2)]
    value = (p[0] - 8.0 * p[1] + 8.0 * p[2] - p[3]) / (12.0 * step)
    res.copy_(_gamma_domain(value, a, x))


def zeta(res, x, q):
    torch.special.zeta(x, q, out=res)


def polygamma(res, order, x):
    """The order-th derivative of digamma: (-1)^(n+1) n! zeta(n + 1, x), digamma at n = 0;
    NaN where the order is not a whole number >= 0 (TF's)."""
    n, x = torch.broadcast_tensors(order.double(), x.double())
    whole = (n == torch.floor(n)) & (n >= 0)
    m = torch.where(whole, n, 1.0)
    sign = torch.where(torch.remainder(m, 2.0) == 0, -1.0, 1.0)
    value = sign * torch.exp(torch.lgamma(m + 1.0)) * torch.special.zeta(m + 1.0, x)
    value = torch.where(n == 0, torch.digamma(x), value)
    res.copy_(torch.where(whole, value, _NAN))


def _fix(v):
    return torch.where(v.abs() < _BETA_TINY, _BETA_TINY, v)


def _beta_fraction(a, b, x):
    """The continued fraction of I_x(a, b) (Lentz's method, Numerical Recipes' betacf), all
    elements at once, stopping when every one has converged or after _BETA_STEPS terms."""
    c, d = torch.ones_like(x), 1.0 / _fix(1.0 - (a + b) * x / (a + 1.0))
    fraction = d.clone()
    for m in range(1, _BETA_STEPS + 1):
        for coefficient in (m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m)),
                            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0))):
            d = 1.0 / _fix(1.0 + coefficient * d)
            c = _fix(1.0 + coefficient / c)
            delta = d * c
            fraction = fraction * delta
        if not bool(((delta - 1.0).abs() > 1e-15).any()):
            break
    return fraction


def betainc(res, a, b, x):
    """I_x(a, b): x^a (1-x)^b / (a B(a, b)) times the continued fraction, from the nearer end
    (I_x(a, b) = 1 - I_{1-x}(b, a) past the mean); 0 at x = 0, 1 at x = 1; NaN for a <= 0,
    b <= 0, x outside [0, 1] or a NaN."""
    a, b, x = torch.broadcast_tensors(a.double(), b.double(), x.double())
    valid = (a > 0) & (b > 0) & (x >= 0) & (x <= 1)
    flip = x > (a + 1.0) / (a + b + 2.0)
    a, b, x = torch.where(flip, b, a), torch.where(flip, a, b), torch.where(flip, 1.0 - x, x)
    inner = (x > 0) & valid
    x_safe = torch.where(inner, x, 0.5)
    a, b = torch.where(valid, a, 1.0), torch.where(valid, b, 1.0)
    log_front = (a * torch.log(x_safe) + b * torch.log1p(-x_safe)
                 - (torch.lgamma(a) + torch.lgamma(b) - torch.lgamma(a + b)))
    value = torch.exp(log_front) * _beta_fraction(a, b, x_safe) / a
    value = torch.where(inner, value, 0.0)
    value = torch.where(flip, 1.0 - value, value)
    res.copy_(torch.where(valid, value, _NAN))
