"""``tf.nn.log_poisson_loss``: TensorFlow 1.15's Poisson negative log-likelihood from the log
of the predicted rate, composed as TF composes it; ``compute_average_loss`` and
``scale_regularization_loss``, TF's loss scaling for distribution strategies, here one replica
(TinyFlow's ``tf.distribute`` has no replicas)."""
from __future__ import annotations

import numpy as np

from ...nnvm.symbol import current_context
from ..api import cast, exp, greater_equal, less_equal, log, logical_and, reduce_sum, where
from ..array_ops import expand_dims, shape, squeeze, zeros_like
from ..dtypes import float32
from ..math_ops import convert_to_tensor

__all__ = ["compute_average_loss", "log_poisson_loss", "scale_regularization_loss"]


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


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """TF 1.15's ``tf.nn.compute_average_loss``: ``sum(per_example_loss * sample_weight) /
    global_batch_size``, the global batch size by default the size of axis 0 (one replica).
    ``sample_weight`` broadcasts to the loss after TF's squeeze-or-expand of its last axis."""
    per_example_loss = convert_to_tensor(per_example_loss, name="per_example_loss")
    input_dtype = per_example_loss.dtype
    rank = per_example_loss.get_shape().ndims
    if rank == 0:
        raise ValueError(f"Invalid value passed for `per_example_loss`. Expected a tensor with "
                         f"at least rank 1, got {per_example_loss.name} of rank 0")
    if sample_weight is not None:
        weight = cast(convert_to_tensor(sample_weight, name="sample_weight"), float32)
        weight_rank = weight.get_shape().ndims
        if rank is not None and weight_rank not in (None, 0):  # TF's squeeze_or_expand
            if weight_rank == rank - 1:
                weight = expand_dims(weight, -1)
            elif weight_rank == rank + 1:
                weight = squeeze(weight, [-1])
        per_example_loss = cast(cast(per_example_loss, float32) * weight, input_dtype)
    if global_batch_size is None:
        global_batch_size = shape(per_example_loss)[0]
    global_batch_size = cast(convert_to_tensor(global_batch_size), input_dtype)
    return reduce_sum(per_example_loss) / global_batch_size


def scale_regularization_loss(regularization_loss):
    """TF 1.15's ``tf.nn.scale_regularization_loss``: the sum of ``regularization_loss``
    divided by the number of replicas, here one."""
    return reduce_sum(convert_to_tensor(regularization_loss, name="regularization_loss"))
