"""Bernoulli and Categorical as in TensorFlow 1.15 (``ops/distributions/bernoulli.py``,
``categorical.py``): given logits or probabilities, integer samples (``dtype``, int32 by
default) that are not reparameterized; log_prob is TF's cross entropy of the event."""
from __future__ import annotations

from .. import api, array_ops, math_ops, random_ops
from ..dtypes import as_dtype, int32
from ..framework import name_scope
from ..nn import functions as nn
from .distribution import NOT_REPARAMETERIZED, Distribution, RegisterKL, parameters_as_tensors

__all__ = ["Bernoulli", "Categorical"]


def _logits_or_probs(logits, probs):
    """The one of ``logits`` and ``probs`` given, as a float tensor, and which it is."""
    if (logits is None) == (probs is None):
        raise ValueError("Must pass probs or logits, but not both.")
    key = "logits" if logits is not None else "probs"
    return key, parameters_as_tensors({key: logits if logits is not None else probs})[key]


class _Discrete(Distribution):
    """Given logits or probs (exactly one), the other computed from it."""

    def __init__(self, parameters, logits, probs, dtype, validate_args, allow_nan_stats, name):
        with name_scope(name) as scope:
            key, given = _logits_or_probs(logits, probs)
            self._logits, self._probs = ((given, self._to_probs(given)) if key == "logits"
                                         else (self._to_logits(given), given))
        super().__init__(as_dtype(dtype), NOT_REPARAMETERIZED, validate_args, allow_nan_stats,
                         parameters, [self._logits, self._probs], scope)

    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)


class Bernoulli(_Discrete):
    """The Bernoulli distribution over {0, 1}, batched (``tf.distributions.Bernoulli``).

    Parameters
    ----------
    logits, probs : float, array or floating Tensor
        The log-odds or the probability of a 1: exactly one of the two.
    dtype : DType
        The samples' dtype (int32).
    """

    def __init__(self, logits=None, probs=None, dtype=int32, validate_args=False,
                 allow_nan_stats=True, name="Bernoulli"):
        super().__init__(dict(locals()), logits, probs, dtype, validate_args, allow_nan_stats,
                         name)

    @staticmethod
    def _to_probs(logits):
        return api.sigmoid(logits)

    @staticmethod
    def _to_logits(probs):
        return api.log(probs) - api.log1p(-probs)

    def _batch_shape(self):
        return self._logits.shape

    def _batch_shape_tensor(self):
        return array_ops.shape(self._logits)

    def _sample(self, dims, count, seed):
        unit = random_ops.random_uniform(dims, dtype=self._probs.dtype, seed=seed)
        return api.cast(api.less(unit, self._probs), self.dtype)

    def _value(self, value):
        return api.cast(math_ops.convert_to_tensor(value, name="value"), self._logits.dtype)

    def _log_prob(self, event):
        ones = array_ops.ones_like(event) * array_ops.ones_like(self._logits)
        return -nn.sigmoid_cross_entropy_with_logits(labels=event * ones,
                                                     logits=self._logits * ones)

    def _entropy(self):
        return -self._logits * (api.sigmoid(self._logits) - 1.) + nn.softplus(-self._logits)

    def _mean(self):
        return api.identity(self._probs)

    def _variance(self):
        return self._probs * (1. - self._probs)

    def _mode(self):
        return api.cast(api.greater(self._probs, 0.5), self.dtype)


@RegisterKL(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(a, b, name=None):
    """KL(a || b) from the logits, as TF: p_a log(p_a / p_b) + (1 - p_a) log((1 - p_a) / (1 -
    p_b)) with log p = -softplus(-logits), log(1 - p) = -softplus(logits)."""
    with name_scope(name or "kl_bernoulli_bernoulli"):
        delta_probs0 = nn.softplus(-b.logits) - nn.softplus(-a.logits)
        delta_probs1 = nn.softplus(b.logits) - nn.softplus(a.logits)
        return api.sigmoid(a.logits) * delta_probs0 + api.sigmoid(-a.logits) * delta_probs1


class Categorical(_Discrete):
    """The categorical distribution over ``{0, ..., K - 1}``, K the last axis of ``logits`` or
    ``probs`` (``tf.distributions.Categorical``); the other axes are the batch.

    ``cdf(k)`` is TF 1.15's: the probability of the classes below ``k`` (``P(X < k)``).
    """

    def __init__(self, logits=None, probs=None, dtype=int32, validate_args=False,
                 allow_nan_stats=True, name="Categorical"):
        super().__init__(dict(locals()), logits, probs, dtype, validate_args, allow_nan_stats,
                         name)
        if self._logits.shape.ndims == 0:
            raise ValueError(f"Categorical's {'logits' if logits is not None else 'probs'} "
                             f"must have rank >= 1 (the last axis is the classes'), got a scalar")

    @staticmethod
    def _to_probs(logits):
        return nn.softmax(logits)

    @staticmethod
    def _to_logits(probs):
        return api.log(probs)

    @property
    def event_size(self):
        size = self._logits.shape.as_list()[-1] if self._logits.shape.ndims else None
        return size if size is not None else array_ops.shape(self._logits)[-1]

    def _batch_shape(self):
        shape = self._logits.shape
        return shape if shape.ndims is None else shape[:-1]

    def _batch_shape_tensor(self):
        return array_ops.shape(self._logits)[:-1]

    def _sample(self, dims, count, seed):
        rows = array_ops.reshape(self._logits, [-1, self.event_size])
        draws = random_ops.multinomial(rows, count, seed=seed)  # [batch, count]
        return api.cast(array_ops.reshape(array_ops.transpose(draws), dims), self.dtype)

    def _value(self, value):
        value = math_ops.convert_to_tensor(value, name="value")
        return value if value.dtype == int32 else api.cast(value, int32)

    def _broadcast(self, k):
        """``k`` and the logits broadcast to one batch shape (TF's
        ``_broadcast_cat_event_and_params``)."""
        logits = self._logits
        if k.shape.is_fully_defined() and k.shape == self.batch_shape:
            return k, logits
        logits = logits * array_ops.ones_like(array_ops.expand_dims(api.cast(k, logits.dtype),
                                                                    -1))
        return k * array_ops.ones_like(api.argmax(logits, -1), dtype=int32), logits

    def _log_prob(self, k):
        k, logits = self._broadcast(k)
        return -nn.sparse_softmax_cross_entropy_with_logits(labels=k, logits=logits)

    def _cdf(self, k):
        k, logits = self._broadcast(k)
        # each class's index, as the logits' dtype: K may be known only at run time
        classes = math_ops.cumsum(array_ops.ones_like(logits), -1) - 1.
        below = api.cast(api.less(classes, array_ops.expand_dims(api.cast(k, logits.dtype), -1)),
                         logits.dtype)
        return api.reduce_sum(nn.softmax(logits) * below, -1)

    def _entropy(self):
        return -api.reduce_sum(nn.log_softmax(self._logits) * nn.softmax(self._logits), -1)

    def _mode(self):
        return api.cast(api.argmax(self._logits, -1), self.dtype)


@RegisterKL(Categorical, Categorical)
def _kl_categorical_categorical(a, b, name=None):
    """KL(a || b) = sum_k p_a(k) (log p_a(k) - log p_b(k)), over the last axis."""
    with name_scope(name or "kl_categorical_categorical"):
        return api.reduce_sum(nn.softmax(a.logits) * (nn.log_softmax(a.logits) -
                                                      nn.log_softmax(b.logits)), -1)
