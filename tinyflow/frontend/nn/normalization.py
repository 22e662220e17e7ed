"""``tf.nn``'s fused and global batch normalisation, as TensorFlow 1.15 defines them, composed
from the ops users write (moments, rsqrt, broadcasting arithmetic).

``fused_batch_norm`` in training normalises by the batch's mean and (biased) variance and
returns them, the variance with Bessel's correction ``n / (n - 1)`` as TF's kernel does; in
inference it uses the ``mean`` and ``variance`` given and returns them.  TF's gradient of the
fused op flows to x, scale and offset through y only (none through the returned statistics,
none to an inference mean or variance): ``stop_gradient`` says the same here.
"""
from __future__ import annotations

import numpy as np

from ..api import cast, maximum, reduce_mean, reduce_prod, rsqrt, square, stop_gradient
from ..array_ops import gather, reshape, shape
from ..dtypes import float32
from ..math_ops import convert_to_tensor
from .functions import _data_format, batch_normalization

__all__ = ["batch_norm_with_global_normalization", "fused_batch_norm"]

_MIN_EPSILON = 1.001e-5  # TF 1.15 raises a smaller epsilon to this (cuDNN's minimum)


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001,
                     data_format="NHWC", is_training=True, name=None):
    """``(y, batch_mean, batch_variance)`` of TF 1.15's ``tf.nn.fused_batch_norm`` on a 4-D
    ``x`` (``data_format`` 'NHWC' or 'NCHW'), per channel: ``y = (x - mean) * rsqrt(var +
    epsilon) * scale + offset`` with the batch's statistics (``is_training``) or the given
    ``mean`` and ``variance``; ``epsilon`` at least 1.001e-5.  In training the returned
    variance has Bessel's correction; float16 ``x`` is normalised in float32."""
    x = convert_to_tensor(x, name="x")
    data_format = _data_format(data_format)
    if x.get_shape().ndims != 4:
        raise ValueError(f"fused_batch_norm: x must be 4-dimensional, got shape "
                         f"{x.get_shape()}")
    if not is_training and (mean is None or variance is None):
        raise ValueError("fused_batch_norm: both mean and variance must be given (1-D "
                         "tensors) when is_training is False")
    epsilon = max(float(epsilon), _MIN_EPSILON)
    axes, channels = ([0, 1, 2], [1, 1, 1, -1]) if data_format == "NHWC" else (
        [0, 2, 3], [1, -1, 1, 1])
    flt = cast(x, float32) if x.dtype != float32 else x
    per_channel = lambda v: reshape(convert_to_tensor(v, dtype=float32), channels)
    if is_training:
        batch_mean = reduce_mean(flt, axes)
        batch_variance = reduce_mean(square(flt - per_channel(batch_mean)), axes)
        counted = _count(x, axes)
        bessel = counted / maximum(counted - 1.0, 1.0)  # TF's kernel: n / max(n - 1, 1)
        returned = batch_mean, batch_variance * bessel
    else:
        batch_mean = stop_gradient(convert_to_tensor(mean, dtype=float32))
        batch_variance = stop_gradient(convert_to_tensor(variance, dtype=float32))
        returned = batch_mean, batch_variance
    y = ((flt - per_channel(batch_mean)) * per_channel(rsqrt(batch_variance + epsilon))
         * per_channel(scale) + per_channel(offset))
    y = cast(y, x.dtype, name=name) if x.dtype != float32 else y
    return y, stop_gradient(returned[0]), stop_gradient(returned[1])


def _count(x, axes):
    """How many elements each channel's statistics are over: a Python number when x's dims
    are known, else ``tf.shape``'s at run time."""
    dims = x.get_shape().as_list()
    if all(dims[a] is not None for a in axes):
        return float(np.prod([dims[a] for a in axes]))
    return cast(reduce_prod(gather(shape(x), axes)), float32)


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None,
                                         variance_epsilon=None, scale_after_normalization=None,
                                         name=None, input=None, mean=None, variance=None):
    """TF 1.15's deprecated global batch normalisation: ``batch_normalization(t, m, v, beta,
    gamma if scale_after_normalization else None, variance_epsilon)`` (``input``, ``mean``
    and ``variance`` are the TF-2 names of ``t``, ``m`` and ``v``)."""
    t, m, v = (input if t is None else t), (mean if m is None else m), (variance if v is None
                                                                         else v)
    if any(a is None for a in (t, m, v, beta, gamma, variance_epsilon,
                               scale_after_normalization)):
        raise TypeError("batch_norm_with_global_normalization() needs t, m, v, beta, gamma, "
                        "variance_epsilon and scale_after_normalization")
    return batch_normalization(convert_to_tensor(t, name="t"), m, v, beta,
                               gamma if scale_after_normalization else None,
                               variance_epsilon, name=name)
