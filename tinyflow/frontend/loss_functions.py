"""``tf.losses``' functions as TensorFlow 1.15 has them (TF's ``losses_impl``): weighted,
reduced losses kept in a collection; :mod:`.losses` is the ``tf.losses`` module that exports them.

Each loss computes per-element values, multiplies them by ``weights`` (a number, or a tensor of
the losses' rank whose dims are 1 or the losses', as TF checks) and reduces them as ``reduction``
says; the default, ``SUM_BY_NONZERO_WEIGHTS``, divides the weighted sum by the number of
elements whose weight is not 0 (the mean, with ``weights=1.0``), and 0 when there are none.  The
result is added to the collection ``tf.GraphKeys.LOSSES`` (``loss_collection``) that
:func:`get_losses` and :func:`get_total_loss` read.  Ops are named as TF names them: under the
loss's scope (``"absolute_difference/"``), the reduced loss ``value``.
"""
from __future__ import annotations

import numpy as np

from ..nnvm.symbol import Symbol
from ..nnvm.tensor_shape import TensorShape
from . import api, array_ops
from .framework import GraphKeys, add_to_collection, get_collection, name_scope
from .nn import functions as nn

__all__ = [
    "Reduction",
    "absolute_difference",
    "add_loss",
    "compute_weighted_loss",
    "cosine_distance",
    "get_losses",
    "get_regularization_loss",
    "get_regularization_losses",
    "get_total_loss",
    "hinge_loss",
    "huber_loss",
    "log_loss",
    "mean_pairwise_squared_error",
    "mean_squared_error",
    "sigmoid_cross_entropy",
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


def _safe_mean(total: Symbol, count: Symbol, name="value") -> Symbol:
    """``total / count``, 0 where ``count`` is 0 (TF's ``div_no_nan``); the inner where keeps
    the gradient finite there."""
    empty = api.equal(count, 0.0)
    return api.where(empty, 0.0, total / api.where(empty, 1.0, count), name=name)


def _num_present(losses: Symbol, weights, per_batch=False) -> Symbol:
    """How many elements of ``losses`` have a nonzero weight (weights broadcast to them); with
    ``per_batch``, per first index (summed over the other axes, kept as 1s)."""
    if isinstance(weights, float) and weights != 0.0:
        return api.cast(array_ops.size(losses), "float32")
    weights = api.cast(weights, "float32")
    present = api.where(api.equal(weights, 0.0), array_ops.zeros_like(weights),
                        array_ops.ones_like(weights))
    present = present * array_ops.ones_like(losses)
    if per_batch:
        return api.reduce_sum(present, axis=_trailing_axes(losses), keepdims=True)
    return api.reduce_sum(present)


def _trailing_axes(x: Symbol) -> list:
    """``range(1, rank(x))``, the axes TF's pairwise loss sums per example: x's rank must be
    known when the graph is built."""
    rank = x.get_shape().ndims
    if rank is None:
        raise ValueError(f"mean_pairwise_squared_error: the rank of {x.name} must be known "
                         f"when the graph is built")
    return list(range(1, rank))


def _static_shape(value) -> TensorShape:
    if isinstance(value, Symbol):
        return value.get_shape()
    return TensorShape(np.shape(value))  # a number, a list or an array


def _check_broadcastable(weights, values: Symbol) -> None:
    """TF's ``assert_broadcastable`` where shapes are known: weights a scalar, or of the
    values' rank with each dim 1 or the values'."""
    weights_shape, values_shape = _static_shape(weights), values.get_shape()
    if weights_shape.ndims in (None, 0) or values_shape.ndims is None:
        return
    prefix = "weights can not be broadcast to values."
    if weights_shape.ndims != values_shape.ndims:
        raise ValueError(f"{prefix} values.rank={values_shape.ndims}. weights.rank="
                         f"{weights_shape.ndims}. values.shape={values_shape}. weights.shape="
                         f"{weights_shape}.")
    for dim, (w, v) in enumerate(zip(weights_shape.as_list(), values_shape.as_list())):
        if w is not None and v is not None and w not in (1, v):
            raise ValueError(f"{prefix} Mismatch at dim {dim}. values.shape={values_shape} "
                             f"weights.shape={weights_shape}.")


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Symbol:
    """``losses * weights`` reduced by ``reduction``, in the losses' dtype, added to
    ``loss_collection`` (None: to none).

    Parameters
    ----------
    losses : Symbol
        Per-element losses.
    weights : float or Symbol
        A number, or a tensor of the losses' rank whose dims are 1 or the losses' (computed in
        float32).
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
        When ``reduction`` is no :class:`Reduction` key, or ``weights`` cannot be broadcast to
        ``losses``.
    """
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss"):
        losses = losses if isinstance(losses, Symbol) else api.constant(losses)
        _check_broadcastable(weights, losses)
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


def _assert_compatible(predictions: Symbol, labels: Symbol) -> None:
    """TF's ``assert_is_compatible_with``: a ValueError naming both shapes."""
    if not _compatible(predictions.get_shape(), labels.get_shape()):
        raise ValueError(f"Shapes {predictions.get_shape()} and {labels.get_shape()} "
                         f"are incompatible")


def _as_float(labels, predictions) -> tuple:
    """Both cast to float32 (as TF's regression losses do), their shapes compatible."""
    predictions, labels = api.cast(predictions, "float32"), api.cast(labels, "float32")
    _assert_compatible(predictions, labels)
    return labels, predictions


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
    with name_scope(scope, "sparse_softmax_cross_entropy_loss") as entered:
        losses = nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                             name="xentropy")
        return compute_weighted_loss(losses, weights, entered, loss_collection, reduction)


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
    with name_scope(scope, "softmax_cross_entropy_loss") as entered:
        logits = logits if isinstance(logits, Symbol) else api.constant(logits)
        labels = api.cast(onehot_labels, logits.dtype)
        _assert_compatible(logits, labels)
        if label_smoothing > 0:
            num_classes = api.cast(array_ops.shape(labels)[-1], logits.dtype)
            labels = labels * (1.0 - label_smoothing) + label_smoothing / num_classes
        losses = nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                      name="xentropy")
        return compute_weighted_loss(losses, weights, entered, loss_collection, reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0,
                          scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Symbol:
    """Per-element sigmoid cross-entropy of ``logits`` against ``multi_class_labels`` (cast to
    the logits' dtype, in [0, 1]), weighted and reduced by :func:`compute_weighted_loss`.  With
    ``label_smoothing`` the labels become ``labels * (1 - s) + s / 2``.

    Returns
    -------
    Symbol
        The loss (a scalar unless ``reduction`` is ``Reduction.NONE``).
    """
    _check(multi_class_labels, logits, "multi_class_labels")
    with name_scope(scope, "sigmoid_cross_entropy_loss") as entered:
        logits = logits if isinstance(logits, Symbol) else api.constant(logits)
        labels = api.cast(multi_class_labels, logits.dtype)
        _assert_compatible(logits, labels)
        if label_smoothing > 0:
            labels = labels * (1.0 - label_smoothing) + 0.5 * label_smoothing
        losses = nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                      name="xentropy")
        return compute_weighted_loss(losses, weights, entered, loss_collection, reduction)


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
    with name_scope(scope, "mean_squared_error") as entered:
        labels, predictions = _as_float(labels, predictions)
        losses = api.square(predictions - labels)
        return compute_weighted_loss(losses, weights, entered, loss_collection, reduction)


def absolute_difference(labels, predictions, weights=1.0, scope=None,
                        loss_collection=GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Symbol:
    """``|predictions - labels|`` (both cast to float32), weighted and reduced by
    :func:`compute_weighted_loss`.

    Returns
    -------
    Symbol
        The loss (a scalar unless ``reduction`` is ``Reduction.NONE``).
    """
    _check(labels, predictions, "labels", "predictions")
    with name_scope(scope, "absolute_difference") as entered:
        labels, predictions = _as_float(labels, predictions)
        losses = api.abs(predictions - labels)
        return compute_weighted_loss(losses, weights, entered, loss_collection, reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None,
               loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Symbol:
    """Huber's loss of ``e = predictions - labels`` (both cast to float32): ``e**2 / 2`` where
    ``|e| <= delta``, else ``delta * (|e| - delta / 2)``; computed as TF does,
    ``q**2 / 2 + delta * (|e| - q)`` with ``q = min(|e|, delta)``; weighted and reduced by
    :func:`compute_weighted_loss`.

    Returns
    -------
    Symbol
        The loss (a scalar unless ``reduction`` is ``Reduction.NONE``).
    """
    _check(labels, predictions, "labels", "predictions")
    with name_scope(scope, "huber_loss") as entered:
        labels, predictions = _as_float(labels, predictions)
        abs_error = api.abs(predictions - labels)
        quadratic = api.minimum(abs_error, delta)
        linear = abs_error - quadratic
        losses = 0.5 * (quadratic * quadratic) + api.multiply(delta, linear)
        return compute_weighted_loss(losses, weights, entered, loss_collection, reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None,
             loss_collection=GraphKeys.LOSSES,
             reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Symbol:
    """``-labels * log(predictions + epsilon) - (1 - labels) * log(1 - predictions +
    epsilon)`` (both cast to float32; predictions are probabilities), weighted and reduced by
    :func:`compute_weighted_loss`.

    Returns
    -------
    Symbol
        The loss (a scalar unless ``reduction`` is ``Reduction.NONE``).
    """
    _check(labels, predictions, "labels", "predictions")
    with name_scope(scope, "log_loss") as entered:
        labels, predictions = _as_float(labels, predictions)
        losses = (-labels * api.log(predictions + epsilon)
                  - (1.0 - labels) * api.log(1.0 - predictions + epsilon))
        return compute_weighted_loss(losses, weights, entered, loss_collection, reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS) -> Symbol:
    """``max(0, 1 - (2 * labels - 1) * logits)``: labels 0 or 1 (cast to float32) taken as -1
    and 1; weighted and reduced by :func:`compute_weighted_loss`.

    Returns
    -------
    Symbol
        The loss (a scalar unless ``reduction`` is ``Reduction.NONE``).
    """
    _check(labels, logits, "labels", "logits")
    with name_scope(scope, "hinge_loss") as entered:
        labels, logits = _as_float(labels, logits)
        signs = 2.0 * labels - 1.0
        losses = nn.relu(1.0 - signs * logits)
        return compute_weighted_loss(losses, weights, entered, loss_collection, reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None,
                    loss_collection=GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None) -> Symbol:
    """``1 - sum(labels * predictions, axis)`` (both cast to float32, both assumed unit-
    normalised along ``axis``; the axis kept as 1), weighted and reduced by
    :func:`compute_weighted_loss`.  ``dim`` is ``axis``' deprecated name.

    Returns
    -------
    Symbol
        The loss (a scalar unless ``reduction`` is ``Reduction.NONE``).

    Raises
    ------
    ValueError
        When neither ``axis`` nor ``dim`` is given, or both are and differ.
    """
    if axis is not None and dim is not None and axis != dim:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    _check(labels, predictions, "labels", "predictions")
    with name_scope(scope, "cosine_distance_loss") as entered:
        labels, predictions = _as_float(labels, predictions)
        losses = 1.0 - api.reduce_sum(predictions * labels, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, entered, loss_collection, reduction)


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None,
                                loss_collection=GraphKeys.LOSSES) -> Symbol:
    """Per example (first index), the mean over pairs of its elements of ``(d_i - d_j) ** 2``,
    ``d = predictions - labels`` (both cast to float32), counting the elements whose weight is
    nonzero: ``2 * sum(d**2) / (n - 1) - 2 * sum(d)**2 / (n * (n - 1))``; each times its
    weight (a number, or ``[batch]`` broadcast as ``[batch, 1, ...]``), summed over the batch
    (0 when no weight is nonzero), as TF computes it.  The inputs' rank must be known.

    Returns
    -------
    Symbol
        The loss, a scalar.
    """
    _check(labels, predictions, "labels", "predictions")
    with name_scope(scope, "mean_pairwise_squared_error"):
        weights = api.cast(weights, "float32")
        labels, predictions = _as_float(labels, predictions)
        _check_broadcastable(weights, labels)
        diffs = predictions - labels
        axes = _trailing_axes(diffs)
        count = _num_present(diffs, weights, per_batch=True)
        sum_squares = api.reduce_sum(api.square(diffs), axis=axes, keepdims=True)
        term1 = 2.0 * _safe_mean(sum_squares, api.maximum(count - 1.0, 0.0))
        sum_diff = api.reduce_sum(diffs, axis=axes, keepdims=True)
        term2 = 2.0 * _safe_mean(api.square(sum_diff), api.maximum(count * (count - 1.0), 0.0))
        loss = api.reduce_sum(api.multiply(term1 - term2, weights))
        loss = api.where(api.greater(api.reduce_sum(count), 0.0), loss,
                         array_ops.zeros_like(loss), name="value")
        add_loss(loss, loss_collection)
        return loss


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
