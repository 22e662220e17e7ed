"""Normal, Uniform and Laplace as in TensorFlow 1.15 (``ops/distributions/normal.py``,
``uniform.py``, ``laplace.py``): each sample is the parameters applied to noise from TinyFlow's
graph-seeded random ops, so gradients flow to the parameters (FULLY_REPARAMETERIZED)."""
from __future__ import annotations

import math

import numpy as np

from .. import api, array_ops, math_ops, random_ops
from ..framework import name_scope
from .distribution import (
    FULLY_REPARAMETERIZED,
    Distribution,
    RegisterKL,
    assert_positive,
    broadcast_shape,
    parameters_as_tensors,
)

__all__ = ["Laplace", "Normal", "Uniform"]


class TwoParameters(Distribution):
    """A family of two parameters broadcast together (``first``, ``second``), as TF's;
    ``positive`` names those validate_args checks."""

    _PARAMETERS = ()

    def __init__(self, parameters, first, second, validate_args, allow_nan_stats, name,
                 positive=()):
        with name_scope(name) as scope:
            tensors = parameters_as_tensors({self._PARAMETERS[0]: first,
                                             self._PARAMETERS[1]: second})
            if validate_args:
                tensors = {key: assert_positive(value, key) if key in positive else value
                           for key, value in tensors.items()}
        self._first, self._second = (tensors[key] for key in self._PARAMETERS)
        super().__init__(self._first.dtype, FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, [self._first, self._second], scope)

    def _batch_shape(self):
        return broadcast_shape(self._first.shape, self._second.shape)

    def _batch_shape_tensor(self):
        return array_ops.shape(self._first + self._second)

    def _broadcast(self, tensor):
        """``tensor`` broadcast to the batch's shape (TF's ``x * ones_like(other)``)."""
        return tensor * array_ops.ones_like(self._first + self._second)


def _ndtr(z):
    """The standard normal's cdf."""
    return 0.5 * api.erfc(-z * (1. / math.sqrt(2.)))


def _log_ndtr(z, series_order=3):
    """log of the standard normal's cdf, finite far in the lower tail: TF's
    ``special_math.log_ndtr``, its three segments (``-ndtr(-z)`` above the upper bound, the
    log of ndtr between, the asymptotic series below), each fed values inside its segment so
    that no branch's gradient is NaN."""
    lower, upper = (-20., 8.) if z.dtype.name == "float64" else (-10., 5.)
    low = api.minimum(z, lower)
    low_square = api.square(low)
    series, power = 1., low_square
    for n in range(1, series_order + 1):  # 1 + sum (-1)^n (2n - 1)!! / z^2n
        series = series + (-1.) ** n * float(np.prod(np.arange(2 * n - 1, 0, -2))) / power
        power = power * low_square
    lower_tail = (-0.5 * low_square - api.log(-low) - 0.5 * math.log(2. * math.pi) +
                  api.log(series))
    middle = api.log(_ndtr(api.maximum(z, lower)))
    return api.where(api.greater(z, upper), -_ndtr(-z),
                     api.where(api.greater(z, lower), middle, lower_tail))


class Normal(TwoParameters):
    """The normal distribution N(loc, scale^2), batched (``tf.distributions.Normal``).

    Parameters
    ----------
    loc, scale : float, array or floating Tensor
        Mean and standard deviation, broadcast together to ``batch_shape``.
    validate_args : bool
        Check at run time that ``scale`` is positive.
    allow_nan_stats : bool
    name : str
    """

    _PARAMETERS = ("loc", "scale")

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Normal"):
        super().__init__(dict(locals()), loc, scale, validate_args, allow_nan_stats, name,
                         positive=("scale",))

    loc = property(lambda self: self._first)
    scale = property(lambda self: self._second)

    def _sample(self, dims, count, seed):
        noise = random_ops.random_normal(dims, dtype=self.dtype, seed=seed)
        return noise * self.scale + self.loc

    def _z(self, x):
        return (x - self.loc) / self.scale

    def _log_prob(self, x):
        return -0.5 * api.square(self._z(x)) - (0.5 * math.log(2. * math.pi) +
                                                api.log(self.scale))

    def _cdf(self, x):
        return _ndtr(self._z(x))

    def _log_cdf(self, x):
        return _log_ndtr(self._z(x))

    def _log_survival_function(self, x):
        return _log_ndtr(-self._z(x))

    def _entropy(self):
        return self._broadcast(0.5 * math.log(2. * math.pi * math.e) + api.log(self.scale))

    def _mean(self):
        return self._broadcast(self.loc)

    _mode = _mean

    def _stddev(self):
        return self._broadcast(self.scale)


@RegisterKL(Normal, Normal)
def _kl_normal_normal(n_a, n_b, name=None):
    """KL(a || b) = (mu_a - mu_b)^2 / (2 s_b^2) + (r - 1 - log r) / 2, r = s_a^2 / s_b^2."""
    with name_scope(name or "kl_normal_normal"):
        ratio = api.square(n_a.scale) / api.square(n_b.scale)
        return (api.square(n_a.loc - n_b.loc) / (2. * api.square(n_b.scale)) +
                0.5 * (ratio - 1. - api.log(ratio)))


class Uniform(TwoParameters):
    """The uniform distribution on ``[low, high)``, batched (``tf.distributions.Uniform``).

    ``prob`` is ``1 / (high - low)`` on ``[low, high)``, 0 elsewhere and NaN at NaN, as TF's.
    """

    _PARAMETERS = ("low", "high")

    def __init__(self, low=0., high=1., validate_args=False, allow_nan_stats=True,
                 name="Uniform"):
        super().__init__(dict(locals()), low, high, validate_args, allow_nan_stats, name)

    low = property(lambda self: self._first)
    high = property(lambda self: self._second)

    def range(self, name="range"):
        with self._scope(name):
            return self.high - self.low

    def _sample(self, dims, count, seed):
        unit = random_ops.random_uniform(dims, dtype=self.dtype, seed=seed)
        return self.low + (self.high - self.low) * unit

    def _prob(self, x):
        x = self._broadcast(x)
        inside = array_ops.ones_like(x) / (self.high - self.low)
        outside = api.logical_or(api.less(x, self.low), api.greater_equal(x, self.high))
        return api.where(math_ops.is_nan(x), x,
                         api.where(outside, array_ops.zeros_like(x), inside))

    def _cdf(self, x):
        x = self._broadcast(x)
        return api.where(api.less(x, self.low), array_ops.zeros_like(x),
                         api.where(api.greater_equal(x, self.high), array_ops.ones_like(x),
                                   (x - self.low) / (self.high - self.low)))

    def _entropy(self):
        return api.log(self._broadcast(self.high - self.low))

    def _mean(self):
        return (self.low + self.high) / 2.

    def _variance(self):
        return api.square(self.high - self.low) / 12.

    def _stddev(self):
        return (self.high - self.low) / math.sqrt(12.)


class Laplace(TwoParameters):
    """The Laplace distribution, density ``exp(-|x - loc| / scale) / (2 scale)``
    (``tf.distributions.Laplace``)."""

    _PARAMETERS = ("loc", "scale")

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Laplace"):
        super().__init__(dict(locals()), loc, scale, validate_args, allow_nan_stats, name,
                         positive=("scale",))

    loc = property(lambda self: self._first)
    scale = property(lambda self: self._second)

    def _sample(self, dims, count, seed):
        # TF's: u uniform on (-1, 1), excluding -1, where log1p(-|u|) is finite
        low = float(np.nextafter(np.array(-1., self.dtype.name), np.array(0., self.dtype.name)))
        unit = random_ops.random_uniform(dims, minval=low, maxval=1., dtype=self.dtype,
                                         seed=seed)
        return self.loc - self.scale * api.sign(unit) * api.log1p(-api.abs(unit))

    def _log_prob(self, x):
        return -math.log(2.) - api.log(self.scale) - api.abs(x - self.loc) / self.scale

    def _cdf(self, x):
        z = (x - self.loc) / self.scale
        return 0.5 - 0.5 * api.sign(z) * api.expm1(-api.abs(z))

    def _entropy(self):
        return self._broadcast(math.log(2.) + 1. + api.log(self.scale))

    def _mean(self):
        return self._broadcast(self.loc)

    _mode = _mean

    def _stddev(self):
        return self._broadcast(math.sqrt(2.) * self.scale)
