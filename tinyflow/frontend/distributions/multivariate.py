"""``tf.contrib.distributions.MultivariateNormalDiag`` (TF 1.15's contrib): a normal
distribution over vectors (the last axis) with covariance ``diag(scale_diag)^2``, built from
the per-coordinate normal's formulas summed over the event axis."""
from __future__ import annotations

import math

from .. import api, array_ops, matrix_ops, random_ops
from ..framework import name_scope
from .distribution import (
    FULLY_REPARAMETERIZED,
    Distribution,
    RegisterKL,
    broadcast_shape,
    parameters_as_tensors,
)

__all__ = ["MultivariateNormalDiag"]


class MultivariateNormalDiag(Distribution):
    """N(loc, diag(scale_diag)^2) over the last axis (event_shape ``[k]``), batched over the
    others.

    Parameters
    ----------
    loc : float array or Tensor, optional
        The mean, ``[..., k]`` (zeros when left out).
    scale_diag : float array or Tensor, optional
        The scale matrix's diagonal, ``[..., k]`` (the identity when left out).
    scale_identity_multiplier : float or Tensor, optional
        Added to the scale's diagonal, as TF's ``scale_identity_multiplier * I``.
    """

    def __init__(self, loc=None, scale_diag=None, scale_identity_multiplier=None,
                 validate_args=False, allow_nan_stats=True, name="MultivariateNormalDiag"):
        parameters = dict(locals())
        if loc is None and scale_diag is None:
            raise ValueError("MultivariateNormalDiag needs loc or scale_diag (its event size)")
        with name_scope(name) as scope:
            given = {key: value for key, value in (("loc", loc), ("scale_diag", scale_diag),
                     ("scale_identity_multiplier", scale_identity_multiplier))
                     if value is not None}
            tensors = parameters_as_tensors(given)
            loc = tensors.get("loc")
            scale = tensors.get("scale_diag")
            if scale is None:
                scale = array_ops.ones_like(loc) * (0. if scale_identity_multiplier is not None
                                                    else 1.)
            if scale_identity_multiplier is not None:
                scale = scale + tensors["scale_identity_multiplier"]
            self._loc = loc if loc is not None else array_ops.zeros_like(scale)
            self._scale_diag = scale
        for key, tensor in (("loc", self._loc), ("scale_diag", self._scale_diag)):
            if tensor.shape.ndims == 0:
                raise ValueError(f"MultivariateNormalDiag's {key} must have rank >= 1 (the last "
                                 f"axis is the event's), got a scalar")
        super().__init__(self._loc.dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats,
                         parameters, [self._loc, self._scale_diag], scope)

    loc = property(lambda self: self._loc)
    scale_diag = property(lambda self: self._scale_diag)

    def _full_shape(self):
        return broadcast_shape(self._loc.shape, self._scale_diag.shape)

    def _batch_shape(self):
        shape = self._full_shape()
        return shape if shape.ndims is None else shape[:-1]

    def _event_shape(self):
        shape = self._full_shape()
        return shape if shape.ndims is None else shape[-1:]

    def _batch_shape_tensor(self):
        return array_ops.shape(self._loc + self._scale_diag)[:-1]

    def _event_shape_tensor(self):
        return array_ops.shape(self._loc + self._scale_diag)[-1:]

    def _broadcast(self, tensor):
        return tensor * array_ops.ones_like(self._loc + self._scale_diag)

    def _sample(self, dims, count, seed):
        noise = random_ops.random_normal(dims, dtype=self.dtype, seed=seed)
        return self._loc + self._scale_diag * noise

    def _log_prob(self, x):
        z = (x - self._loc) / self._scale_diag
        return -api.reduce_sum(self._broadcast(0.5 * api.square(z) + 0.5 * math.log(2. * math.pi)
                                               + api.log(api.abs(self._scale_diag))), -1)

    def _entropy(self):
        return api.reduce_sum(self._broadcast(0.5 * math.log(2. * math.pi * math.e) +
                                              api.log(api.abs(self._scale_diag))), -1)

    def _mean(self):
        return self._broadcast(self._loc)

    _mode = _mean

    def _stddev(self):
        return self._broadcast(api.abs(self._scale_diag))

    def _variance(self):
        return self._broadcast(api.square(self._scale_diag))

    def _covariance(self):
        return matrix_ops.matrix_diag(self._variance())


@RegisterKL(MultivariateNormalDiag, MultivariateNormalDiag)
def _kl_mvn_diag(a, b, name=None):
    """KL(a || b) of two diagonal normals: the coordinates' normal KLs summed."""
    with name_scope(name or "kl_mvn_mvn"):
        ratio = api.square(a.scale_diag) / api.square(b.scale_diag)
        per_coordinate = (api.square(a.loc - b.loc) / (2. * api.square(b.scale_diag)) +
                          0.5 * (ratio - 1. - api.log(ratio)))
        return api.reduce_sum(per_coordinate, -1)
