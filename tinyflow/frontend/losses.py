"""``tf.losses`` as TensorFlow 1.15 has it: weighted, reduced losses kept in a collection.

Each loss computes per-element values, multiplies them by ``weights`` (a number or a tensor
broadcast against them) and reduces them as ``reduction`` says; the default,
``SUM_BY_NONZERO_WEIGHTS``, divides the weighted sum by the number of elements whose weight is
not 0 (the mean, with ``weights=1.0``), and 0 when there are none.  The result is added to the
collection ``tf.GraphKeys.LOSSES`` (``loss_collection``) that :func:`get_losses` and
:func:`get_total_loss` read.
"""
from __future__ import annotations

from ..nnvm.symbol import Symbol
from . import api, array_ops
from .framework import GraphKeys, add_to_collection, get_collection, name_scope
from .nn import functions as nn

__all__ = [
    "Reduction",
    "add_loss",
    "compute_weighted_loss",
    "get_losses",
    "get_regularization_loss",
    "get_regularization_losses",
    "get_total_loss",
    "mean_squared_error",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
]


class Reduction:
    """How :func:`compute_weighted_loss` reduces the weighted losses (TF's key strings)."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


def _safe_mean(total: Symbol, count: Symbol) -> Symbol:
    """``total / count``, 0 where ``count`` is 0 (TF's ``div_no_nan``); the inner where keeps
    the gradient finite there."""
    empty = api.equal(count, 0.0)
    return api.where(empty, 0.0, total / api.where(empty, 1.0, count))


def _num_present(losses: Symbol, weights) -> Symbol:
    """How many elements of ``losses`` have a nonzero weight (weights broadcast to them)."""
    if isinstance(weights, float) and weights != 0.0:
        return api.cast(array_ops.size(losses), "float32")
    weights = api.cast(weights, "float32")
    present = api.where(api.equal(weights, 0.0), array_ops.zeros_like(weights),
                        array_ops.ones_like(weights))
    return api.reduce_sum(present * array_ops.ones_like(losses))


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Symbol:
    """``losses * weights`` reduced by ``reduction``, in the losses' dtype, added to
    ``loss_collection`` (None: to none).

    Parameters
    ----------
    losses : Symbol
        Per-element losses.
    weights : float or Symbol
        A number, or a tensor broadcastable to ``losses`` (computed in float32).
    scope : str, optional
        Name scope of the ops (default ``"weighted_loss"``).
    loss_collection : str or None
        The collection the result is added to.
    reduction : str
        A :class:`Reduction` key.

    Returns
    -------
    Symbol
        The weighted losses (``Reduction.NONE``) or their reduction, a scalar.

    Raises
    ------
    ValueError
        When ``reduction`` is no :class:`Reduction` key.
    """
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss"):
        losses = losses if isinstance(losses, Symbol) else api.constant(losses)
        input_dtype = losses.dtype
        losses = api.cast(losses, "float32") if input_dtype.name != "float32" else losses
        weighted = api.multiply(losses, api.cast(weights, "float32"))
        loss = weighted if reduction == Reduction.NONE else api.reduce_sum(weighted)
        if reduction == Reduction.MEAN:
            loss = _safe_mean(loss, api.reduce_sum(
                array_ops.ones_like(losses) * api.cast(weights, "float32")))
        elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
            loss = _safe_mean(loss, _num_present(losses, weights))
        elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
            loss = _safe_mean(loss, api.cast(array_ops.size(losses), "float32"))
        loss = api.cast(loss, input_dtype) if input_dtype.name != "float32" else loss
        add_loss(loss, loss_collection)
        return loss


def _compatible(a, b) -> bool:
    """TF's ``TensorShape.is_compatible_with``: equal ranks, and dims equal where both known."""
    if a.ndims is None or b.ndims is None:
        return True
    return a.ndims == b.ndims and all((x == y) is not False for x, y in zip(a, b))


def _check(labels, logits, name_of_labels="labels", name_of_logits="logits"):
    if labels is None:
        raise ValueError(f"{name_of_labels} must not be None.")
    if logits is None:
        raise ValueError(f"{name_of_logits} must not be None.")


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None,
                                 loss_collection=GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Symbol:
    """Cross-entropy of ``logits`` ``[batch, classes]`` against class ids ``labels``
    ``[batch]`` (int32 / int64), weighted and reduced by :func:`compute_weighted_loss`: the
    mean over the batch by default.

    Returns
    -------
    Symbol
        The loss (a scalar unless ``reduction`` is ``Reduction.NONE``).
    """
    _check(labels, logits)
    with name_scope(scope, "sparse_softmax_cross_entropy_loss"):
        losses = nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                             name="xentropy")
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0,
                          scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Symbol:
    """Cross-entropy of ``logits`` against ``onehot_labels`` (cast to the logits' dtype; no
    gradient flows into them), weighted and reduced by :func:`compute_weighted_loss`.  With
    ``label_smoothing`` the labels become ``labels * (1 - s) + s / num_classes``.

    Returns
    -------
    Symbol
        The loss (a scalar unless ``reduction`` is ``Reduction.NONE``).
    """
    _check(onehot_labels, logits, "onehot_labels")
    with name_scope(scope, "softmax_cross_entropy_loss"):
        logits = logits if isinstance(logits, Symbol) else api.constant(logits)
        labels = api.cast(onehot_labels, logits.dtype)
        if label_smoothing > 0:
            num_classes = api.cast(array_ops.shape(labels)[-1], logits.dtype)
            labels = labels * (1.0 - label_smoothing) + label_smoothing / num_classes
        losses = nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                      name="xentropy")
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None,
                       loss_collection=GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Symbol:
    """``(predictions - labels) ** 2`` (both cast to float32), weighted and reduced by
    :func:`compute_weighted_loss`.

    Returns
    -------
    Symbol
        The loss (a scalar unless ``reduction`` is ``Reduction.NONE``).
    """
    _check(labels, predictions, "labels", "predictions")
    with name_scope(scope, "mean_squared_error"):
        predictions, labels = api.cast(predictions, "float32"), api.cast(labels, "float32")
        if not _compatible(predictions.get_shape(), labels.get_shape()):
            raise ValueError(f"Shapes {predictions.get_shape()} and {labels.get_shape()} "
                             f"are incompatible")
        losses = api.square(predictions - labels)
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def add_loss(loss, loss_collection=GraphKeys.LOSSES) -> None:
    """Add ``loss`` to ``loss_collection`` (nothing when that is None)."""
    if loss_collection:
        add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES) -> list:
    """The losses in ``loss_collection``, those whose name starts with ``scope`` if given."""
    return get_collection(loss_collection, scope)


def get_regularization_losses(scope=None) -> list:
    """The losses in ``tf.GraphKeys.REGULARIZATION_LOSSES``."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss") -> Symbol:
    """The sum of :func:`get_regularization_losses` (what ``tf.layers``' ``kernel_regularizer``
    and ``get_variable``'s ``regularizer`` add), or a constant 0.0 when there are none."""
    losses = get_regularization_losses(scope)
    return api.add_n(losses, name=name) if losses else api.constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None) -> Symbol:
    """The sum of :func:`get_losses` (and of the regularization losses when asked).

    Raises
    ------
    ValueError
        When there is no loss to add.
    """
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    if not losses:
        raise ValueError("No losses found in the loss collection.")
    return api.add_n(losses, name=name)
