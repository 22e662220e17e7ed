"""``tf.contrib.losses`` (``slim.losses``) as TensorFlow 1.15 has it: its deprecated aliases of
``tf.losses`` taking the logits or predictions first (``softmax_cross_entropy(logits,
onehot_labels)``), the losses added to ``tf.GraphKeys.LOSSES``; ``get_total_loss`` and the
collection readers are ``tf.losses``'.  Any other name is an AttributeError saying TinyFlow
lacks it."""
from __future__ import annotations

from .. import losses as _losses
from ..losses import add_loss, get_losses, get_regularization_losses

__all__ = [
    "add_loss",
    "get_losses",
    "get_regularization_losses",
    "get_total_loss",
    "mean_squared_error",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
]


def softmax_cross_entropy(logits, onehot_labels, weights=1.0, label_smoothing=0, scope=None):
    """``tf.losses.softmax_cross_entropy(onehot_labels, logits, ...)``: the weighted mean."""
    return _losses.softmax_cross_entropy(onehot_labels, logits, weights, label_smoothing, scope)


def sparse_softmax_cross_entropy(logits, labels, weights=1.0, scope=None):
    """``tf.losses.sparse_softmax_cross_entropy(labels, logits, ...)``: the weighted mean."""
    return _losses.sparse_softmax_cross_entropy(labels, logits, weights, scope)


def mean_squared_error(predictions, labels=None, weights=1.0, scope=None):
    """``tf.losses.mean_squared_error(labels, predictions, ...)``: the weighted mean."""
    return _losses.mean_squared_error(labels, predictions, weights, scope)


def get_total_loss(add_regularization_losses=True, name="total_loss"):
    """The sum of the losses (and by default the regularization losses)."""
    return _losses.get_total_loss(add_regularization_losses, name)


def __getattr__(name):
    raise AttributeError(f"tf.contrib.losses.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.contrib.losses' has no attribute {name!r})")
