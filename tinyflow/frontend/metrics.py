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
from ..nnvm.tensor_shape import TensorShape
from ..nnvm.variables import Variable
from . import api, array_ops, math_ops
from .framework import GraphKeys, add_to_collection
from .variable_scope import variable_scope

__all__ = [
    "accuracy",
    "auc",
    "mean",
    "mean_absolute_error",
    "mean_iou",
    "mean_squared_error",
    "precision",
    "recall",
]


def __getattr__(name):
    raise AttributeError(f"tf.metrics.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.metrics' has no attribute {name!r})")


# -- the shared pieces -------------------------------------------------------------------------
def _metric_variable(shape, dtype, name) -> Variable:
    """A zero variable in LOCAL_VARIABLES and METRIC_VARIABLES (TF's ``metric_variable``)."""
    return Variable(array_ops.zeros(shape, dtype=dtype), trainable=False, name=name,
                    collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES])


def _ratio(numerator, denominator, name) -> Symbol:
    """``numerator / denominator``, 0 where the denominator is not positive (TF's
    ``div_no_nan(n, maximum(d, 0))`` and ``where(d > 0, n / d, 0)`` alike)."""
    positive = api.greater(denominator, 0.0)
    safe = api.where(positive, denominator, array_ops.ones_like(denominator))
    return api.where(positive, numerator / safe, array_ops.zeros_like(numerator), name=name)


def _finish(value, update_op, metrics_collections, updates_collections):
    """Add the value and the update op to the collections asked for; return them."""
    for keys, item in ((metrics_collections, value), (updates_collections, update_op)):
        for key in [keys] if isinstance(keys, str) else keys or ():  # one name, as TF's
            add_to_collection(key, item)
    return value, update_op


def _shape(tensor: Symbol) -> TensorShape:
    return TensorShape(tensor.get_shape())


def _check_compatible(a: Symbol, b: Symbol) -> None:
    """TF's ``assert_is_compatible_with`` on static shapes: a ValueError at build."""
    if not _shape(a).is_compatible_with(_shape(b)):
        raise ValueError(f"Shapes {_shape(a)} and {_shape(b)} are incompatible")


def _squeeze_last(tensor: Symbol, other: Symbol) -> Symbol:
    """``tensor`` without its last dimension when that is 1 and ``other`` has one rank less."""
    rank, other_rank = _shape(tensor).ndims, _shape(other).ndims
    if rank is not None and other_rank is not None and rank - other_rank == 1 \
            and _shape(tensor).as_list()[-1] in (1, None):
        return array_ops.squeeze(tensor, [-1])
    return tensor


def _remove_squeezable_dimensions(predictions, labels, weights):
    """TF's: a size-1 last dimension of predictions or labels goes when their ranks differ by
    one (their shapes must then agree); a weight tensor gains or loses a last dimension to
    match the predictions' rank."""
    predictions = math_ops.convert_to_tensor(predictions)
    if labels is not None:
        labels = math_ops.convert_to_tensor(labels)
        labels, predictions = _squeeze_last(labels, predictions), _squeeze_last(predictions,
                                                                                labels)
        _check_compatible(predictions, labels)
    if weights is None:
        return predictions, labels, None
    weights = math_ops.convert_to_tensor(weights)
    weights_rank, rank = _shape(weights).ndims, _shape(predictions).ndims
    if weights_rank not in (0, None) and rank is not None:
        if weights_rank - rank == 1:
            last = _shape(weights).as_list()[-1]
            if last not in (1, None):
                raise ValueError(f"Can not squeeze dim[{weights_rank - 1}], expected a "
                                 f"dimension of 1, got {last} (weights of shape "
                                 f"{_shape(weights)})")
            weights = array_ops.squeeze(weights, [-1])
        elif rank - weights_rank == 1:
            weights = array_ops.expand_dims(weights, -1)
    return predictions, labels, weights


def _broadcast_weights(weights, values: Symbol) -> Symbol:
    """``weights`` (float32) times ones of ``values``' shape; TF's static broadcast check (a
    scalar, or the same rank with each dimension 1 or equal) raises ValueError at build."""
    weights = api.cast(weights, "float32")
    w_shape, v_shape = _shape(weights), _shape(values)
    if w_shape.ndims not in (0, None) and v_shape.ndims is not None:
        if w_shape.ndims != v_shape.ndims:
            raise ValueError(f"weights can not be broadcast to values. values.rank="
                             f"{v_shape.ndims}. weights.rank={w_shape.ndims}.")
        for dim, (w, v) in enumerate(zip(w_shape.as_list(), v_shape.as_list())):
            if w not in (1, None) and v is not None and w != v:
                raise ValueError(f"weights can not be broadcast to values. Mismatch at dim "
                                 f"{dim}. values.shape={v_shape.as_list()}, weights.shape="
                                 f"{w_shape.as_list()}.")
    return weights * array_ops.ones_like(values, dtype="float32")


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
def _check_multipliable(values: Symbol, weights: Symbol) -> None:
    """TF's static check of ``values * weights``: dimensions from the right equal or 1."""
    if _shape(values).ndims is None or _shape(weights).ndims is None:
        return
    for a, b in zip(reversed(_shape(values).as_list()), reversed(_shape(weights).as_list())):
        if a is not None and b is not None and a != b and 1 not in (a, b):
            raise ValueError(f"Dimensions must be equal, but are {a} and {b} (values of shape "
                             f"{_shape(values)}, weights of shape {_shape(weights)})")


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


def _confusion_at_thresholds(labels, predictions, thresholds, weights) -> dict:
    """Variables ``true_positives``, ``false_negatives``, ``true_negatives``,
    ``false_positives`` (one count per threshold; a score counts positive when it is above
    the threshold) and their updates: ``{"tp": (variable, update), ...}``."""
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
