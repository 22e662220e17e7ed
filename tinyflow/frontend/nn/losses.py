"""``tf.nn.log_poisson_loss``: TensorFlow 1.15's Poisson negative log-likelihood from the log
of the predicted rate, composed as TF composes it."""
from __future__ import annotations

import numpy as np

from ...nnvm.symbol import current_context
from ..api import exp, greater_equal, less_equal, log, logical_and, where
from ..array_ops import zeros_like
from ..math_ops import convert_to_tensor

__all__ = ["log_poisson_loss"]


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """Per element ``exp(log_input) - log_input * targets``; with ``compute_full_loss`` plus
    Stirling's approximation of ``log(targets!)``, ``targets * log(targets) - targets +
    0.5 * log(2 pi targets)``, where ``targets`` is above 1 (0 in [0, 1], as TF 1.15)."""
    with current_context().name_scope(name or "log_poisson_loss"):
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_to_tensor(targets, name="targets", dtype=log_input.dtype)
        if targets.get_shape().ndims is not None and log_input.get_shape().ndims is not None \
                and not targets.get_shape().is_compatible_with(log_input.get_shape()):
            raise ValueError(f"log_poisson_loss: log_input shape ({log_input.get_shape()}) and "
                             f"targets shape ({targets.get_shape()}) must be the same")
        result = exp(log_input) - log_input * targets
        if not compute_full_loss:
            return result
        stirling = (targets * log(targets) - targets
                    + 0.5 * log(float(2 * np.pi) * targets))
        zeros = zeros_like(targets)
        small = logical_and(greater_equal(targets, 0.0), less_equal(targets, 1.0))
        return result + where(small, zeros, stirling)
