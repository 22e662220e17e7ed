"""``tf.metrics`` as TensorFlow 1.15 has it: streaming metrics over local variables.

Each metric returns ``(value, update_op)``.  Its running totals are variables made, zero, in the
collections ``GraphKeys.LOCAL_VARIABLES`` and ``GraphKeys.METRIC_VARIABLES`` under a variable
scope named after the metric (``accuracy/total:0``, ``accuracy/count:0``; ``accuracy_1/...``
for a second one, ``name=`` to choose).  ``update_op`` adds one batch to the totals and gives
the metric over every batch so far; ``value`` reads the totals without changing them;
``tf.local_variables_initializer()`` sets them back to zero.  A ratio whose denominator is not
positive is 0, as TF's ``div_no_nan``.  ``metrics_collections`` and ``updates_collections``
name collections the value and the update op join.
"""
from __future__ import annotations

import numpy as np

from ..nnvm.symbol import Symbol
from . import api, array_ops, math_ops
from .control_flow_ops import Assert
from .metrics_at_k import *  # tf.metrics' ranking metrics
from .metrics_at_k import __all__ as _at_k_all
from .metrics_base import (
    _broadcast_weights,
    _check_compatible,
    _check_multipliable,
    _finish,
    _metric_variable,
    _ratio,
    _remove_squeezable_dimensions,
    _shape,
)
from .variable_scope import variable_scope

__all__ = [
    "accuracy",
    "auc",
    "false_negatives",
    "false_negatives_at_thresholds",
    "false_positives",
    "false_positives_at_thresholds",
    "mean",
    "mean_absolute_error",
    "mean_cosine_distance",
    "mean_iou",
    "mean_per_class_accuracy",
    "mean_relative_error",
    "mean_squared_error",
    "mean_tensor",
    "percentage_below",
    "precision",
    "precision_at_thresholds",
    "recall",
    "recall_at_thresholds",
    "root_mean_squared_error",
    "sensitivity_at_specificity",
    "specificity_at_sensitivity",
    "true_negatives",
    "true_negatives_at_thresholds",
    "true_positives",
    "true_positives_at_thresholds",
] + list(_at_k_all)


def __getattr__(name):
    raise AttributeError(f"tf.metrics.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.metrics' has no attribute {name!r})")


# -- means -------------------------------------------------------------------------------------
def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """The (weighted) mean of every value seen: ``total / count`` over two local variables.

    Parameters
    ----------
    values : Symbol
        Any shape; cast to float32.
    weights : Symbol or number, optional
        A scalar, or a tensor broadcastable to ``values`` (same rank, each dimension 1 or
        equal); ``count`` sums the weights, ``total`` the weighted values.
    metrics_collections, updates_collections : list of str, optional
        Collections the value and the update op join.
    name : str, optional
        The variable scope (default ``mean``, made unique).

    Returns
    -------
    (Symbol, Symbol)
        ``value`` (``mean/value:0``, 0 while ``count`` is 0) and ``update_op``.
    """
    with variable_scope(name, default_name="mean"):
        values = api.cast(values, "float32")
        total = _metric_variable([], "float32", "total")
        count = _metric_variable([], "float32", "count")
        if weights is None:
            num_values = api.cast(array_ops.size(values), "float32")
        else:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = _broadcast_weights(weights, values)
            values = values * weights
            num_values = api.reduce_sum(weights)
        update_total = api.assign_add(total, api.reduce_sum(values))
        update_count = api.assign_add(count, num_values)
        value = _ratio(total, count, "value")
        update_op = _ratio(update_total, update_count, "update_op")
    return _finish(value, update_op, metrics_collections, updates_collections)


def accuracy(labels, predictions, weights=None, metrics_collections=None,
             updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """How often ``predictions`` equals ``labels``: the weighted mean of the matches.

    Parameters
    ----------
    labels, predictions : Symbol
        The same shape (a last dimension of 1 on either is squeezed away); predictions are
        cast to the labels' dtype.
    weights, metrics_collections, updates_collections : optional
        As :func:`mean`.
    name : str, optional
        The variable scope (default ``accuracy``): ``accuracy/total:0``, ``accuracy/count:0``.

    Returns
    -------
    (Symbol, Symbol)
        ``value`` and ``update_op``.

    Raises
    ------
    ValueError
        Static shapes of labels, predictions or weights that do not fit.
    """
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    if labels.dtype != predictions.dtype:
        predictions = api.cast(predictions, labels.dtype)
    is_correct = api.cast(api.equal(predictions, labels), "float32")
    return mean(is_correct, weights, metrics_collections, updates_collections,
                name or "accuracy")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                       updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """The weighted mean of ``(labels - predictions) ** 2`` (scope ``mean_squared_error``);
    arguments and results as :func:`accuracy`."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    return mean(math_ops.squared_difference(labels, predictions), weights, metrics_collections,
                updates_collections, name or "mean_squared_error")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None,
                        updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """The weighted mean of ``|predictions - labels|`` (scope ``mean_absolute_error``);
    arguments and results as :func:`accuracy`."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    return mean(api.abs(predictions - labels), weights, metrics_collections,
                updates_collections, name or "mean_absolute_error")


# -- precision and recall ----------------------------------------------------------------------
def _count(condition, weights, scope):
    """TF's ``_count_condition`` in scope ``scope``: a ``count`` variable summing the weights
    where ``condition`` holds; returns the variable and its update."""
    with variable_scope(None, default_name=scope):
        count = _metric_variable([], "float32", "count")
        values = api.cast(condition, "float32")
        if weights is not None:
            weights = api.cast(weights, "float32")
            _check_multipliable(values, weights)
            values = values * weights
        return count, api.assign_add(count, api.reduce_sum(values))


def _binary_counts(labels, predictions, weights, second):
    """True positives and ``second`` (false_positives or false_negatives) of bools."""
    predictions, labels, weights = _remove_squeezable_dimensions(
        api.cast(predictions, "bool"), api.cast(labels, "bool"), weights)
    true_p = _count(api.logical_and(labels, predictions), weights, "true_positives")
    if second == "false_positives":
        other = api.logical_and(api.logical_not(labels), predictions)
    else:
        other = api.logical_and(labels, api.logical_not(predictions))
    return true_p, _count(other, weights, second)


def precision(labels, predictions, weights=None, metrics_collections=None,
              updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """``tp / (tp + fp)`` of boolean labels and predictions (nonzero is True), 0 while there
    are no predicted positives.

    Parameters
    ----------
    labels, predictions : Symbol
        The same shape; cast to bool.
    weights, metrics_collections, updates_collections : optional
        As :func:`mean` (a weight multiplies each example's count).
    name : str, optional
        The variable scope (default ``precision``): ``precision/true_positives/count:0`` and
        ``precision/false_positives/count:0``.

    Returns
    -------
    (Symbol, Symbol)
        ``value`` and ``update_op``.
    """
    with variable_scope(name, default_name="precision"):
        (tp, tp_update), (fp, fp_update) = _binary_counts(labels, predictions, weights,
                                                          "false_positives")
        value = _ratio(tp, tp + fp, "value")
        update_op = _ratio(tp_update, tp_update + fp_update, "update_op")
    return _finish(value, update_op, metrics_collections, updates_collections)


def recall(labels, predictions, weights=None, metrics_collections=None,
           updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """``tp / (tp + fn)`` of boolean labels and predictions, 0 while there are no positive
    labels; arguments as :func:`precision` (scope ``recall``: ``recall/true_positives/count``,
    ``recall/false_negatives/count``)."""
    with variable_scope(name, default_name="recall"):
        (tp, tp_update), (fn, fn_update) = _binary_counts(labels, predictions, weights,
                                                          "false_negatives")
        value = _ratio(tp, tp + fn, "value")
        update_op = _ratio(tp_update, tp_update + fn_update, "update_op")
    return _finish(value, update_op, metrics_collections, updates_collections)


# -- auc ---------------------------------------------------------------------------------------
def _thresholds(num_thresholds, thresholds) -> list:
    """TF's: ``num_thresholds - 2`` evenly spaced in (0, 1), or the sorted ``thresholds``,
    between ``-1e-7`` and ``1 + 1e-7`` (so a score of 0 or 1 falls inside)."""
    if thresholds is not None:
        inner = sorted(thresholds)
    else:
        inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - 1e-7] + inner + [1.0 + 1e-7]


def _confusion_at_thresholds(labels, predictions, thresholds, weights,
                             includes=("tp", "fn", "tn", "fp")) -> dict:
    """Variables ``true_positives``, ``false_negatives``, ``true_negatives``,
    ``false_positives`` of those ``includes`` names (one count per threshold; a score counts
    positive when it is above the threshold) and their updates: ``{"tp": (variable, update),
    ...}``."""
    predictions, labels, weights = _remove_squeezable_dimensions(
        api.cast(predictions, "float32"), api.cast(labels, "bool"), weights)
    # [thresholds, examples] by broadcasting, as TF's tiles: 1.0 where the score is above
    above = api.cast(api.greater(array_ops.reshape(predictions, [1, -1]),
                                 api.constant(np.array(thresholds, np.float32)[:, None])),
                     "float32")
    positive = array_ops.reshape(api.cast(labels, "float32"), [1, -1])
    if weights is not None:
        weights = array_ops.reshape(_broadcast_weights(weights, predictions), [1, -1])
        positive, negative = positive * weights, (1.0 - positive) * weights
    else:
        negative = 1.0 - positive
    cases = {"tp": ("true_positives", above * positive),
             "fn": ("false_negatives", (1.0 - above) * positive),
             "tn": ("true_negatives", (1.0 - above) * negative),
             "fp": ("false_positives", above * negative)}
    counts = {}
    for key, (name, is_case) in cases.items():
        if key not in includes:
            continue
        variable = _metric_variable([len(thresholds)], "float32", name)
        counts[key] = variable, api.assign_add(variable, api.reduce_sum(is_case, 1))
    return counts


def _interpolate_pr_auc(tp, fp, fn, name) -> Symbol:
    """TF's ``careful_interpolation`` of the precision-recall curve (Davis & Goadrich, 2006):
    precision varies as ``(tp_a + slope * (p - p_a)) / p`` between thresholds."""
    dtp = tp[:-1] - tp[1:]
    p = tp + fp
    slope = _ratio(dtp, p[:-1] - p[1:], "prec_slope")
    intercept = tp[1:] - slope * p[1:]
    both = api.logical_and(api.greater(p[:-1], 0.0), api.greater(p[1:], 0.0))
    ratio = api.where(both, _ratio(p[:-1], p[1:], "recall_relative_ratio"),
                      array_ops.ones_like(p[1:]))
    return api.reduce_sum(_ratio(slope * (dtp + intercept * api.log(ratio)), tp[1:] + fn[1:],
                                 "pr_auc_increment"), name=name)


def _area(counts, curve, summation_method, name) -> Symbol:
    """The area under the ROC or PR curve the per-threshold counts draw (TF's
    ``compute_auc``: 1e-6 added to keep recall and precision finite)."""
    tp, fn, tn, fp = (counts[key] for key in ("tp", "fn", "tn", "fp"))
    if curve == "PR" and summation_method == "careful_interpolation":
        return _interpolate_pr_auc(tp, fp, fn, name)
    epsilon = 1.0e-6
    recall_ = (tp + epsilon) / (tp + fn + epsilon)
    if curve == "ROC":
        x, y = fp / (fp + tn + epsilon), recall_
    else:
        x, y = recall_, (tp + epsilon) / (tp + fp + epsilon)
    if summation_method in ("trapezoidal", "careful_interpolation"):
        heights = (y[:-1] + y[1:]) / 2.0
    else:
        heights = (api.minimum if summation_method == "minoring" else api.maximum)(
            y[:-1], y[1:])
    return api.reduce_sum((x[:-1] - x[1:]) * heights, name=name)


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
        updates_collections=None, curve="ROC", name=None, summation_method="trapezoidal",
        thresholds=None) -> tuple[Symbol, Symbol]:
    """The area under the ROC (or precision-recall) curve, as TF 1.15's streaming confusion
    counts at fixed thresholds.

    Parameters
    ----------
    labels : Symbol
        Cast to bool.
    predictions : Symbol
        Scores in [0, 1] (cast to float32), the labels' shape.
    weights : Symbol or number, optional
        Broadcastable to ``predictions``.
    num_thresholds : int
        ``num_thresholds - 2`` evenly spaced in (0, 1), plus ``-1e-7`` and ``1 + 1e-7``.
    metrics_collections, updates_collections : list of str, optional
    curve : {'ROC', 'PR'}
    name : str, optional
        The variable scope (default ``auc``): ``auc/true_positives:0``,
        ``auc/false_negatives:0``, ``auc/true_negatives:0``, ``auc/false_positives:0``.
    summation_method : {'trapezoidal', 'careful_interpolation', 'minoring', 'majoring'}
    thresholds : list of float, optional
        Used instead of ``num_thresholds``'s.

    Returns
    -------
    (Symbol, Symbol)
        ``value`` and ``update_op``.
    """
    with variable_scope(name, default_name="auc"):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
        methods = ("trapezoidal", "careful_interpolation", "minoring", "majoring")
        if summation_method not in methods:
            raise ValueError(f"Invalid summation_method: {summation_method} summation_method "
                             f"should be 'trapezoidal', 'careful_interpolation', 'minoring', "
                             f"or 'majoring'.")
        counts = _confusion_at_thresholds(labels, predictions,
                                          _thresholds(num_thresholds, thresholds), weights)
        value = _area({k: v for k, (v, _) in counts.items()}, curve, summation_method, "value")
        update_op = _area({k: u for k, (_, u) in counts.items()}, curve, summation_method,
                          "update_op")
    return _finish(value, update_op, metrics_collections, updates_collections)


# -- mean_iou ----------------------------------------------------------------------------------
def _mean_iou_value(total_cm: Symbol, num_classes: int) -> Symbol:
    """The mean over classes present (in labels or predictions) of
    ``cm[i, i] / (row_i + column_i - cm[i, i])``; 0 when no class is."""
    sum_over_row = api.cast(api.reduce_sum(total_cm, 0), "float32")
    sum_over_col = api.cast(api.reduce_sum(total_cm, 1), "float32")
    # the diagonal, as a sum of the matrix masked by the identity
    cm_diag = api.cast(api.reduce_sum(total_cm * api.constant(np.eye(num_classes)), 1), "float32")
    denominator = sum_over_row + sum_over_col - cm_diag
    num_valid = api.reduce_sum(api.cast(api.not_equal(denominator, 0.0), "float32"))
    iou = _ratio(cm_diag, denominator, "iou")
    return _ratio(api.reduce_sum(iou), num_valid, "value")


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None,
             updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """The mean intersection-over-union of class ids, over a streaming confusion matrix.

    Parameters
    ----------
    labels, predictions : Symbol
        Class ids in ``[0, num_classes)``, the same shape (flattened).
    num_classes : int
    weights : Symbol or number, optional
        Each example's weight in the matrix.
    metrics_collections, updates_collections : list of str, optional
    name : str, optional
        The variable scope (default ``mean_iou``): ``mean_iou/total_confusion_matrix:0``
        (float64, ``[num_classes, num_classes]``).

    Returns
    -------
    (Symbol, Symbol)
        ``value`` and ``update_op``; as TF, the update op gives the updated confusion matrix.
    """
    with variable_scope(name, default_name="mean_iou"):
        predictions, labels = (math_ops.convert_to_tensor(t) for t in (predictions, labels))
        _check_compatible(predictions, labels)
        total_cm = _metric_variable([num_classes, num_classes], "float64",
                                    "total_confusion_matrix")
        labels, predictions = (array_ops.reshape(api.cast(t, "int64"), [-1])
                               for t in (labels, predictions))
        if weights is not None:
            weights = math_ops.convert_to_tensor(weights)
            if _shape(weights).ndims != 0:
                _check_compatible(labels, weights)
            weights = array_ops.reshape(_broadcast_weights(weights, labels), [-1])
        current = math_ops.confusion_matrix(labels, predictions, num_classes, weights=weights,
                                            dtype="float64")
        update_op = api.assign_add(total_cm, current)
        value = _mean_iou_value(total_cm, num_classes)
    return _finish(value, update_op, metrics_collections, updates_collections)


# -- errors, distances, per-class accuracy, tensors --------------------------------------------
def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                            updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """The square root of :func:`mean_squared_error` (scope ``root_mean_squared_error``:
    ``root_mean_squared_error/total:0``, ``.../count:0``); arguments as :func:`accuracy`."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    mse, update_mse = mean(math_ops.squared_difference(api.cast(labels, "float32"),
                                                       api.cast(predictions, "float32")),
                           weights, None, None, name or "root_mean_squared_error")
    return _finish(api.sqrt(mse), api.sqrt(update_mse), metrics_collections,
                   updates_collections)


def mean_relative_error(labels, predictions, normalizer, weights=None, metrics_collections=None,
                        updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """The weighted mean of ``|labels - predictions| / normalizer`` (0 where the normalizer is
    0), scope ``mean_relative_error``; ``normalizer`` has the predictions' shape, the rest as
    :func:`accuracy`."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    predictions, normalizer, _ = _remove_squeezable_dimensions(predictions, normalizer, None)
    labels, predictions, normalizer = (api.cast(t, "float32")
                                       for t in (labels, predictions, normalizer))
    is_zero = api.equal(normalizer, 0.0)
    safe = api.where(is_zero, array_ops.ones_like(normalizer), normalizer)
    relative = api.where(is_zero, array_ops.zeros_like(labels),
                         api.abs(labels - predictions) / safe)
    return mean(relative, weights, metrics_collections, updates_collections,
                name or "mean_relative_error")


def mean_cosine_distance(labels, predictions, dim, weights=None, metrics_collections=None,
                         updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """``1 -`` the weighted mean over examples of ``sum(labels * predictions, dim)`` (unit
    vectors along ``dim``), scope ``mean_cosine_distance``; ``weights`` broadcast to the sums,
    which keep ``dim`` with size 1.  1 before any update, as TF."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    radial = api.reduce_sum(api.cast(predictions, "float32") * api.cast(labels, "float32"),
                            axis=[dim], keepdims=True)
    value, update_op = mean(radial, weights, None, None, name or "mean_cosine_distance")
    return _finish(1.0 - value, 1.0 - update_op, metrics_collections, updates_collections)


def mean_per_class_accuracy(labels, predictions, num_classes, weights=None,
                            metrics_collections=None, updates_collections=None,
                            name=None) -> tuple[Symbol, Symbol]:
    """The mean over classes of each class's accuracy (its examples' weighted share predicted
    right; 0 for a class not seen).

    Parameters
    ----------
    labels, predictions : Symbol
        Class ids in ``[0, num_classes)`` (flattened); predictions cast to the labels' dtype.
    num_classes : int
    weights, metrics_collections, updates_collections : optional
        As :func:`mean` (weights flattened as the labels).
    name : str, optional
        The variable scope (default ``mean_accuracy``): ``mean_accuracy/total:0`` and
        ``mean_accuracy/count:0``, ``[num_classes]`` each.

    Returns
    -------
    (Symbol, Symbol)
        ``value`` (``mean_accuracy/mean_accuracy:0``) and ``update_op``; as TF, the update op
        gives the updated per-class accuracies.
    """
    with variable_scope(name, default_name="mean_accuracy"):
        labels = array_ops.reshape(api.cast(labels, "int64"), [-1])
        predictions = array_ops.reshape(math_ops.convert_to_tensor(predictions), [-1])
        _check_compatible(predictions, labels)
        total = _metric_variable([num_classes], "float32", "total")
        count = _metric_variable([num_classes], "float32", "count")
        is_correct = api.cast(api.equal(api.cast(predictions, "int64"), labels), "float32")
        # TF's scatter_add of each example's 1 (and of is_correct) at its label, as a sum of
        # one-hot rows; a label outside [0, num_classes) stops the run, as TF's scatter_add
        in_range = api.reduce_all(api.logical_and(api.greater_equal(labels, 0),
                                                  api.less(labels, num_classes)))
        message = f"mean_per_class_accuracy: labels must be in [0, {num_classes}), got"
        check = Assert(in_range, [message, labels])
        with api.control_dependencies([check]):
            rows = array_ops.one_hot(labels, num_classes, dtype="float32")
        if weights is not None:
            weights = array_ops.reshape(api.cast(weights, "float32"), [-1, 1])
            rows = rows * weights
        update_total = api.assign_add(total, api.reduce_sum(rows, 0))
        update_count = api.assign_add(count, api.reduce_sum(
            rows * array_ops.expand_dims(is_correct, 1), 0))
        value = api.reduce_mean(_ratio(count, total, "per_class"), name="mean_accuracy")
        update_op = _ratio(update_count, update_total, "update_op")
    return _finish(value, update_op, metrics_collections, updates_collections)


def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None,
                name=None) -> tuple[Symbol, Symbol]:
    """The element-wise (weighted) mean of ``values`` over batches: variables
    ``mean/total_tensor:0`` and ``mean/count_tensor:0`` of the values' static shape, which
    must be fully known; the rest as :func:`mean`."""
    with variable_scope(name, default_name="mean"):
        values = api.cast(values, "float32")
        if not _shape(values).is_fully_defined():
            raise ValueError(f"mean_tensor needs values of a fully known static shape, got "
                             f"{_shape(values)}")
        shape = _shape(values).as_list()
        total = _metric_variable(shape, "float32", "total_tensor")
        count = _metric_variable(shape, "float32", "count_tensor")
        num_values = array_ops.ones_like(values)
        if weights is not None:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = _broadcast_weights(weights, values)
            values, num_values = values * weights, num_values * weights
        update_total = api.assign_add(total, values)
        update_count = api.assign_add(count, num_values)
        value = _ratio(total, count, "value")
        update_op = _ratio(update_total, update_count, "update_op")
    return _finish(value, update_op, metrics_collections, updates_collections)


def percentage_below(values, threshold, weights=None, metrics_collections=None,
                     updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """The weighted share of ``values`` below ``threshold`` (scope
    ``percentage_below_threshold``); the rest as :func:`mean`."""
    is_below = api.cast(api.less(api.cast(values, "float32"), float(threshold)), "float32")
    return mean(is_below, weights, metrics_collections, updates_collections,
                name or "percentage_below_threshold")


# -- counts ------------------------------------------------------------------------------------
_CONDITIONS = {  # labels, predictions (bools) -> the examples each count counts
    "true_positives": lambda lab, pred: api.logical_and(lab, pred),
    "false_positives": lambda lab, pred: api.logical_and(api.logical_not(lab), pred),
    "true_negatives": lambda lab, pred: api.logical_and(api.logical_not(lab),
                                                        api.logical_not(pred)),
    "false_negatives": lambda lab, pred: api.logical_and(lab, api.logical_not(pred)),
}


def _counted(kind, labels, predictions, weights, metrics_collections, updates_collections,
             name):
    """TF's ``true_positives`` and kin: a ``<kind>/count:0`` summing the weights of the
    examples ``_CONDITIONS[kind]`` picks; the value reads it."""
    with variable_scope(name, default_name=kind):
        predictions, labels, weights = _remove_squeezable_dimensions(
            api.cast(predictions, "bool"), api.cast(labels, "bool"), weights)
        count = _metric_variable([], "float32", "count")
        values = api.cast(_CONDITIONS[kind](labels, predictions), "float32")
        if weights is not None:
            weights = api.cast(weights, "float32")
            _check_multipliable(values, weights)
            values = values * weights
        update_op = api.assign_add(count, api.reduce_sum(values))
        value = api.identity(count)
    return _finish(value, update_op, metrics_collections, updates_collections)


def _counted_at_thresholds(key, labels, predictions, thresholds, weights, metrics_collections,
                           updates_collections, name):
    """TF's ``true_positives_at_thresholds`` and kin: one count per threshold in
    ``<kind>/<kind>:0``; a score counts positive when it is above the threshold."""
    kind = {"tp": "true_positives", "fp": "false_positives", "tn": "true_negatives",
            "fn": "false_negatives"}[key]
    with variable_scope(name, default_name=kind):
        counts = _confusion_at_thresholds(labels, predictions, list(thresholds), weights,
                                          (key,))
        variable, update_op = counts[key]
        value = api.identity(variable)
    return _finish(value, update_op, metrics_collections, updates_collections)


def true_positives(labels, predictions, weights=None, metrics_collections=None,
                   updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """The (weighted) count of examples with label and prediction both True (nonzero):
    ``true_positives/count:0``; arguments as :func:`precision`."""
    return _counted("true_positives", labels, predictions, weights, metrics_collections,
                    updates_collections, name)


def false_positives(labels, predictions, weights=None, metrics_collections=None,
                    updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """The (weighted) count of examples labelled False and predicted True; as
    :func:`true_positives`."""
    return _counted("false_positives", labels, predictions, weights, metrics_collections,
                    updates_collections, name)


def true_negatives(labels, predictions, weights=None, metrics_collections=None,
                   updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """The (weighted) count of examples labelled and predicted False; as
    :func:`true_positives`."""
    return _counted("true_negatives", labels, predictions, weights, metrics_collections,
                    updates_collections, name)


def false_negatives(labels, predictions, weights=None, metrics_collections=None,
                    updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """The (weighted) count of examples labelled True and predicted False; as
    :func:`true_positives`."""
    return _counted("false_negatives", labels, predictions, weights, metrics_collections,
                    updates_collections, name)


def true_positives_at_thresholds(labels, predictions, thresholds, weights=None,
                                 metrics_collections=None, updates_collections=None,
                                 name=None) -> tuple[Symbol, Symbol]:
    """Per threshold, the (weighted) count of True labels whose score is above it
    (``true_positives/true_positives:0``, ``[len(thresholds)]``); predictions are scores in
    [0, 1], the rest as :func:`auc`."""
    return _counted_at_thresholds("tp", labels, predictions, thresholds, weights,
                                  metrics_collections, updates_collections, name)


def false_positives_at_thresholds(labels, predictions, thresholds, weights=None,
                                  metrics_collections=None, updates_collections=None,
                                  name=None) -> tuple[Symbol, Symbol]:
    """Per threshold, the count of False labels scored above it; as
    :func:`true_positives_at_thresholds`."""
    return _counted_at_thresholds("fp", labels, predictions, thresholds, weights,
                                  metrics_collections, updates_collections, name)


def true_negatives_at_thresholds(labels, predictions, thresholds, weights=None,
                                 metrics_collections=None, updates_collections=None,
                                 name=None) -> tuple[Symbol, Symbol]:
    """Per threshold, the count of False labels scored at most it; as
    :func:`true_positives_at_thresholds`."""
    return _counted_at_thresholds("tn", labels, predictions, thresholds, weights,
                                  metrics_collections, updates_collections, name)


def false_negatives_at_thresholds(labels, predictions, thresholds, weights=None,
                                  metrics_collections=None, updates_collections=None,
                                  name=None) -> tuple[Symbol, Symbol]:
    """Per threshold, the count of True labels scored at most it; as
    :func:`true_positives_at_thresholds`."""
    return _counted_at_thresholds("fn", labels, predictions, thresholds, weights,
                                  metrics_collections, updates_collections, name)


# -- precision, recall, sensitivity and specificity at thresholds ------------------------------
_EPSILON = 1e-7  # TF's kepsilon: keeps the ratios at thresholds finite


def _ratio_at_thresholds(kind, labels, predictions, thresholds, weights, metrics_collections,
                         updates_collections, name):
    """``tp / (tp + other + 1e-7)`` per threshold: precision (other = fp) or recall (fn)."""
    other = "fp" if kind == "precision" else "fn"
    with variable_scope(name, default_name=f"{kind}_at_thresholds"):
        counts = _confusion_at_thresholds(labels, predictions, list(thresholds), weights,
                                          ("tp", other))
        (tp, tp_update), (rest, rest_update) = counts["tp"], counts[other]
        value = api.divide(tp, _EPSILON + tp + rest, name=f"{kind}_value")
        update_op = api.divide(tp_update, _EPSILON + tp_update + rest_update,
                               name=f"{kind}_update_op")
    return _finish(value, update_op, metrics_collections, updates_collections)


def precision_at_thresholds(labels, predictions, thresholds, weights=None,
                            metrics_collections=None, updates_collections=None,
                            name=None) -> tuple[Symbol, Symbol]:
    """Per threshold, ``tp / (tp + fp + 1e-7)`` of scores above it (scope
    ``precision_at_thresholds``: ``true_positives:0``, ``false_positives:0``); as
    :func:`true_positives_at_thresholds`."""
    return _ratio_at_thresholds("precision", labels, predictions, thresholds, weights,
                                metrics_collections, updates_collections, name)


def recall_at_thresholds(labels, predictions, thresholds, weights=None,
                         metrics_collections=None, updates_collections=None,
                         name=None) -> tuple[Symbol, Symbol]:
    """Per threshold, ``tp / (tp + fn + 1e-7)`` (scope ``recall_at_thresholds``:
    ``true_positives:0``, ``false_negatives:0``); as :func:`true_positives_at_thresholds`."""
    return _ratio_at_thresholds("recall", labels, predictions, thresholds, weights,
                                metrics_collections, updates_collections, name)


def _rate_at_rate(counts, wanted, sensitivity_given, name):
    """TF's: the threshold whose sensitivity (or specificity) is nearest ``wanted`` (the first
    such for specificity, the last for sensitivity, as TF), and the other rate there."""
    tp, fn, tn, fp = (counts[key] for key in ("tp", "fn", "tn", "fp"))
    if sensitivity_given:  # specificity_at_sensitivity
        distance = api.abs(tp / (tp + fn + _EPSILON) - wanted)
        at_min = api.cast(api.equal(distance, api.reduce_min(distance)), "int64")
        index = api.argmax(math_ops.cumsum(at_min), 0)  # the last index at the minimum
        num, other = array_ops.gather(tn, index), array_ops.gather(fp, index)
    else:
        distance = api.abs(tn / (tn + fp + _EPSILON) - wanted)
        index = api.argmin(distance, 0)
        num, other = array_ops.gather(tp, index), array_ops.gather(fn, index)
    return api.divide(num, num + other + _EPSILON, name=name)


def _rate_metric(sensitivity_given, labels, predictions, wanted, weights, num_thresholds,
                 metrics_collections, updates_collections, name):
    given = "sensitivity" if sensitivity_given else "specificity"
    if wanted < 0 or wanted > 1:
        raise ValueError(f"`{given}` must be in the range [0, 1]. Currently, `{given}` is "
                         f"{wanted}.")
    default = ("specificity_at_sensitivity" if sensitivity_given
               else "sensitivity_at_specificity")
    with variable_scope(name, default_name=default):
        counts = _confusion_at_thresholds(labels, predictions,
                                          _thresholds(num_thresholds, None), weights)
        value = _rate_at_rate({k: v for k, (v, _) in counts.items()}, wanted,
                              sensitivity_given, "value")
        update_op = _rate_at_rate({k: u for k, (_, u) in counts.items()}, wanted,
                                  sensitivity_given, "update_op")
    return _finish(value, update_op, metrics_collections, updates_collections)


def sensitivity_at_specificity(labels, predictions, specificity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """The sensitivity (recall) at the threshold whose specificity ``tn / (tn + fp)`` is
    nearest ``specificity``, over :func:`auc`'s thresholds and confusion counts (scope
    ``sensitivity_at_specificity``).

    Raises
    ------
    ValueError
        ``specificity`` outside [0, 1].
    """
    return _rate_metric(False, labels, predictions, specificity, weights, num_thresholds,
                        metrics_collections, updates_collections, name)


def specificity_at_sensitivity(labels, predictions, sensitivity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """The specificity at the threshold whose sensitivity is nearest ``sensitivity`` (scope
    ``specificity_at_sensitivity``); as :func:`sensitivity_at_specificity`."""
    return _rate_metric(True, labels, predictions, sensitivity, weights, num_thresholds,
                        metrics_collections, updates_collections, name)
