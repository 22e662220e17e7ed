"""Gamma, Exponential, Beta and Dirichlet as in TensorFlow 1.15 (``ops/distributions/gamma.py``,
``exponential.py``, ``beta.py``, ``dirichlet.py``), from tf.lgamma and tf.digamma.

Gamma, Beta and Dirichlet sample as TF does, from gamma variates (``tf.random_gamma``, whose
gradient makes the samples differentiable in the parameters): Gamma's directly, Beta's as
``g1 / (g1 + g0)``, Dirichlet's as ``g / sum(g)`` over the event.  Exponential samples as TF
does, ``-log(u) / rate``.  ``cdf`` of Gamma and Beta would need the regularized incomplete
gamma and beta functions (``tf.igamma``, ``tf.betainc``), which TinyFlow lacks.
"""
from __future__ import annotations

import hashlib

import numpy as np

from .. import api, array_ops, random_ops
from ..framework import name_scope
from .continuous import TwoParameters
from .distribution import (
    FULLY_REPARAMETERIZED,
    Distribution,
    RegisterKL,
    assert_positive,
    parameters_as_tensors,
)

__all__ = ["Beta", "Dirichlet", "Exponential", "Gamma"]


def _xlogy(x, y):
    """x log y, 0 where x is 0 (TF's xlogy; log(0) there would make 0 * -inf = NaN)."""
    return api.where(api.equal(x * array_ops.ones_like(y), 0.),
                     array_ops.zeros_like(x * y), x * api.log(y))


def _gamma_draws(dims, count, alpha, seed, beta=None):
    """``count`` gamma draws per element of alpha (broadcast against beta), as ``dims``."""
    draws = random_ops.random_gamma([count], alpha, beta=beta, dtype=alpha.dtype, seed=seed)
    return array_ops.reshape(draws, dims)


def _new_seed(seed, salt):
    """TF 1.15's ``distribution_util.gen_new_seed``: another op seed derived from ``seed``."""
    if seed is None:
        return None
    digest = hashlib.md5((str(seed) + salt).encode("utf-8")).hexdigest()
    return int(digest[:8], 16) & 0x7FFFFFFF


class Gamma(TwoParameters):
    """The gamma distribution with ``concentration`` (shape) and ``rate`` (inverse scale),
    density ``rate^c x^(c - 1) exp(-rate x) / Gamma(c)`` (``tf.distributions.Gamma``).
    ``cdf`` is not supported (module docstring)."""

    _PARAMETERS = ("concentration", "rate")

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True,
                 name="Gamma"):
        super().__init__(dict(locals()), concentration, rate, validate_args, allow_nan_stats,
                         name, positive=("concentration", "rate"))

    concentration = property(lambda self: self._first)
    rate = property(lambda self: self._second)

    def _sample(self, dims, count, seed):
        return _gamma_draws(dims, count, self.concentration, seed, self.rate)

    def _cdf(self, x):
        raise NotImplementedError(f"{type(self).__name__}.cdf needs the regularized incomplete "
                                  f"gamma function (tf.igamma), which TinyFlow does not have")

    def _log_prob(self, x):
        return (_xlogy(self.concentration - 1., x) - self.rate * x -
                (api.lgamma(self.concentration) - self.concentration * api.log(self.rate)))

    def _entropy(self):
        c = self.concentration
        return (c - api.log(self.rate) + api.lgamma(c) + (1. - c) * api.digamma(c)) * \
            array_ops.ones_like(self.rate)

    def _mean(self):
        return self.concentration / self.rate

    def _variance(self):
        return self.concentration / api.square(self.rate)

    def _stddev(self):
        return api.sqrt(self.concentration) / self.rate

    def _mode(self):
        mode = (self.concentration - 1.) / self.rate
        return self.nan_where(api.less_equal(self.concentration * array_ops.ones_like(mode),
                                             1.), mode, "mode")


@RegisterKL(Gamma, Gamma)
def _kl_gamma_gamma(g0, g1, name=None):
    """TF 1.15's closed form of KL(g0 || g1)."""
    with name_scope(name or "kl_gamma_gamma"):
        c0, c1 = g0.concentration, g1.concentration
        return ((c0 - c1) * api.digamma(c0) + api.lgamma(c1) - api.lgamma(c0) +
                c1 * api.log(g0.rate) - c1 * api.log(g1.rate) + c0 * (g1.rate / g0.rate - 1.))


class Exponential(Gamma):
    """The exponential distribution, density ``rate exp(-rate x)``: a Gamma of concentration 1,
    as TF's (``tf.distributions.Exponential``); its ``mode`` is NaN, as TF 1.15's."""

    def __init__(self, rate, validate_args=False, allow_nan_stats=True, name="Exponential"):
        parameters = dict(locals())
        rate = parameters_as_tensors({"rate": rate})["rate"]
        super().__init__(array_ops.ones([], dtype=rate.dtype), rate, validate_args,
                         allow_nan_stats, name)
        self._parameters = parameters

    def _sample(self, dims, count, seed):
        tiny = float(np.finfo(self.dtype.name).tiny)  # TF's: log(u) finite
        unit = random_ops.random_uniform(dims, minval=tiny, maxval=1., dtype=self.dtype,
                                         seed=seed)
        return -api.log(unit) / self.rate

    def _log_prob(self, x):
        return api.log(self.rate) - self.rate * x

    def _cdf(self, x):
        return -api.expm1(-self.rate * x)


class Beta(TwoParameters):
    """The beta distribution on (0, 1), density ``x^(c1 - 1) (1 - x)^(c0 - 1) / B(c1, c0)``
    (``tf.distributions.Beta``).  ``cdf`` is not supported (module docstring)."""

    _PARAMETERS = ("concentration1", "concentration0")

    def __init__(self, concentration1=None, concentration0=None, validate_args=False,
                 allow_nan_stats=True, name="Beta"):
        super().__init__(dict(locals()), concentration1, concentration0, validate_args,
                         allow_nan_stats, name, positive=self._PARAMETERS)

    concentration1 = property(lambda self: self._first)
    concentration0 = property(lambda self: self._second)

    @property
    def total_concentration(self):
        return self.concentration1 + self.concentration0

    def _sample(self, dims, count, seed):
        ones = array_ops.ones_like(self.total_concentration)
        gamma1 = _gamma_draws(dims, count, ones * self.concentration1, seed)
        gamma0 = _gamma_draws(dims, count, ones * self.concentration0, _new_seed(seed, "beta"))
        return gamma1 / (gamma1 + gamma0)

    def _cdf(self, x):
        raise NotImplementedError("Beta.cdf needs the regularized incomplete beta function "
                                  "(tf.betainc), which TinyFlow does not have")

    def _log_normalization(self):
        return (api.lgamma(self.concentration1) + api.lgamma(self.concentration0) -
                api.lgamma(self.total_concentration))

    def _log_prob(self, x):
        return (_xlogy(self.concentration1 - 1., x) +
                (self.concentration0 - 1.) * api.log1p(-x) - self._log_normalization())

    def _entropy(self):
        c1, c0, total = self.concentration1, self.concentration0, self.total_concentration
        return (self._log_normalization() - (c1 - 1.) * api.digamma(c1) -
                (c0 - 1.) * api.digamma(c0) + (total - 2.) * api.digamma(total))

    def _mean(self):
        return self.concentration1 / self.total_concentration

    def _variance(self):
        mean = self._mean()
        return mean * (1. - mean) / (1. + self.total_concentration)

    def _mode(self):
        mode = (self.concentration1 - 1.) / (self.total_concentration - 2.)
        undefined = api.logical_or(api.less_equal(self.concentration1, 1.),
                                   api.less_equal(self.concentration0, 1.))
        return self.nan_where(undefined, mode, "mode")


@RegisterKL(Beta, Beta)
def _kl_beta_beta(d1, d2, name=None):
    """TF 1.15's closed form of KL(d1 || d2), from the normalisers and digammas."""
    with name_scope(name or "kl_beta_beta"):
        return (d2._log_normalization() - d1._log_normalization() -
                api.digamma(d1.concentration1) * (d2.concentration1 - d1.concentration1) -
                api.digamma(d1.concentration0) * (d2.concentration0 - d1.concentration0) +
                api.digamma(d1.total_concentration) *
                (d2.total_concentration - d1.total_concentration))


class Dirichlet(Distribution):
    """The Dirichlet distribution over the simplex of the last axis of ``concentration``
    (``tf.distributions.Dirichlet``): event_shape ``[k]``, the other axes the batch."""

    def __init__(self, concentration, validate_args=False, allow_nan_stats=True,
                 name="Dirichlet"):
        parameters = dict(locals())
        with name_scope(name) as scope:
            concentration = parameters_as_tensors({"concentration": concentration})[
                "concentration"]
            if concentration.shape.ndims == 0:
                raise ValueError("Dirichlet's concentration must have rank >= 1 (the last "
                                 "axis is the event's), got a scalar")
            self._concentration = (assert_positive(concentration, "concentration")
                                   if validate_args else concentration)
            self._total = api.reduce_sum(self._concentration, -1)
        super().__init__(self._concentration.dtype, FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, [self._concentration], scope)

    concentration = property(lambda self: self._concentration)
    total_concentration = property(lambda self: self._total)

    def _batch_shape(self):
        shape = self._concentration.shape
        return shape if shape.ndims is None else shape[:-1]

    def _batch_shape_tensor(self):
        return array_ops.shape(self._concentration)[:-1]

    def _event_shape(self):
        shape = self._concentration.shape
        return shape if shape.ndims is None else shape[-1:]

    def _event_shape_tensor(self):
        return array_ops.shape(self._concentration)[-1:]

    def _sample(self, dims, count, seed):
        gamma = _gamma_draws(dims, count, self._concentration, seed)
        return gamma / api.reduce_sum(gamma, -1, keepdims=True)

    def _log_normalization(self):
        return (api.reduce_sum(api.lgamma(self._concentration), -1) -
                api.lgamma(self._total))

    def _log_prob(self, x):
        return (api.reduce_sum(_xlogy(self._concentration - 1., x), -1) -
                self._log_normalization())

    def _entropy(self):
        k = api.cast(array_ops.shape(self._concentration)[-1], self.dtype)
        return (self._log_normalization() + (self._total - k) * api.digamma(self._total) -
                api.reduce_sum((self._concentration - 1.) * api.digamma(self._concentration),
                               -1))

    def _mean(self):
        return self._concentration / array_ops.expand_dims(self._total, -1)

    def _variance(self):
        total = array_ops.expand_dims(self._total, -1)
        mean = self._concentration / total
        return mean * (1. - mean) / (total + 1.)

    def _mode(self):
        k = api.cast(array_ops.shape(self._concentration)[-1], self.dtype)
        mode = (self._concentration - 1.) / array_ops.expand_dims(self._total - k, -1)
        # NaN across the event where any concentration is <= 1 (as a float to broadcast it)
        below = api.reduce_max(api.cast(api.less_equal(self._concentration, 1.), self.dtype), -1,
                               keepdims=True)
        return self.nan_where(api.greater(below * array_ops.ones_like(mode), 0.), mode, "mode")


@RegisterKL(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(d1, d2, name=None):
    """TF 1.15's closed form of KL(d1 || d2): sum (c1 - c2)(digamma(c1) - digamma(total1)) -
    log B(c1) + log B(c2), B the multivariate beta function."""
    with name_scope(name or "kl_dirichlet_dirichlet"):
        digamma_diff = (api.digamma(d1.concentration) -
                        array_ops.expand_dims(api.digamma(d1.total_concentration), -1))
        return (api.reduce_sum((d1.concentration - d2.concentration) * digamma_diff, -1) -
                d1._log_normalization() + d2._log_normalization())
