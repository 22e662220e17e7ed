"""``tf.metrics``' ranking metrics as TensorFlow 1.15 has them: recall, precision and average
precision of the top ``k`` classes against each example's set of labels.

Labels are an int tensor ``[D1, ... DN, num_labels]`` (or ``[D1, ... DN]``: one label each), its
row a set (a value repeated counts once; one outside ``[0, num_classes)`` is a label no
prediction finds); SparseTensor labels are not supported.  ``predictions`` are scores
``[D1, ... DN, num_classes]``; the ``*_at_top_k`` forms take the top ``k`` class ids instead.
The counts are float64 variables ``<metric>_at_<k>/true_positive_at_<k>:0`` and its kin; as TF,
recall and precision are NaN while their denominator is 0.
"""
from __future__ import annotations

import numpy as np

from ..nnvm.symbol import Symbol, current_context
from . import api, array_ops, math_ops
from .metrics_base import _check_multipliable, _finish, _metric_variable, _ratio, _shape
from .nn.functions import top_k
from .variable_scope import variable_scope

__all__ = [
    "average_precision_at_k",
    "precision_at_k",
    "precision_at_top_k",
    "recall_at_k",
    "recall_at_top_k",
    "sparse_average_precision_at_k",
    "sparse_precision_at_k",
]


def _at_k_name(name, k=None, class_id=None) -> str:
    """TF's: ``recall_at_5``, ``recall_at_k`` without k, ``recall_at_5_class3``."""
    name = f"{name}_at_{k}" if k is not None else f"{name}_at_k"
    return name if class_id is None else f"{name}_class{class_id}"


def _dense_labels(labels, predictions_idx: Symbol, metric: str) -> Symbol:
    """int64 labels ``[..., num_labels]``: a last dimension added to labels of one rank less
    than the predictions (TF's ``_maybe_expand_labels``)."""
    if hasattr(labels, "dense_shape"):
        raise TypeError(f"tf.metrics.{metric}: SparseTensor labels are not supported by "
                        f"TinyFlow; pass an int tensor [..., num_labels]")
    labels = api.cast(math_ops.convert_to_tensor(labels), "int64")
    rank, predictions_rank = _shape(labels).ndims, _shape(predictions_idx).ndims
    if rank is not None and predictions_rank is not None and rank + 1 == predictions_rank:
        labels = array_ops.expand_dims(labels, -1)
    if _shape(labels).ndims is None or _shape(labels).as_list()[-1] is None:
        raise ValueError(f"tf.metrics.{metric}: labels need a known rank and last dimension "
                         f"(labels of shape {_shape(labels)})")
    return labels


def _hits(labels: Symbol, predictions_idx: Symbol):
    """float32 ``found [..., k]`` (prediction j is among the row's labels), ``caught [...,
    num_labels]`` (label l is among the predictions) and ``first [..., num_labels]`` (label l
    is its value's first entry in the row: the set's members)."""
    same = api.cast(api.equal(array_ops.expand_dims(predictions_idx, -1),
                              array_ops.expand_dims(labels, -2)), "float32")
    found, caught = api.reduce_max(same, -1), api.reduce_max(same, -2)
    num_labels = _shape(labels).as_list()[-1]
    repeats = api.cast(api.equal(array_ops.expand_dims(labels, -1),
                                 array_ops.expand_dims(labels, -2)), "float32")
    earlier = api.constant(np.tril(np.ones((num_labels, num_labels), np.float32), -1))
    return found, caught, 1.0 - api.reduce_max(repeats * earlier, -1)


def _set_counts(labels, predictions_idx, class_id):
    """Per row, float32 ``(tp, fp, fn)`` of the top-k set against the label set (both cut to
    ``{class_id}`` when it is given), as TF's set intersections and differences."""
    found, caught, members = _hits(labels, predictions_idx)
    if class_id is None:
        predicted = array_ops.ones_like(found)
    else:
        predicted = api.cast(api.equal(predictions_idx, class_id), "float32")
        members = members * api.cast(api.equal(labels, class_id), "float32")
    tp = api.reduce_sum(found * predicted, -1)
    fp = api.reduce_sum((1.0 - found) * predicted, -1)
    fn = api.reduce_sum((1.0 - caught) * members, -1)
    return tp, fp, fn


def _streamed(per_row, weights, name):
    """A float64 scalar variable ``name`` summing ``per_row`` (times the weights) per batch."""
    per_row = api.cast(per_row, "float64")
    if weights is not None:
        weights = api.cast(math_ops.convert_to_tensor(weights), "float64")
        _check_multipliable(per_row, weights)
        per_row = per_row * weights
    variable = _metric_variable([], "float64", name)
    return variable, api.assign_add(variable, api.reduce_sum(per_row))


def _top_k_ratio(kind, labels, predictions_idx, k, class_id, weights, metrics_collections,
                 updates_collections, name):
    """``tp / (tp + fn)`` (recall) or ``tp / (tp + fp)`` (precision) of the top-k sets."""
    scope = name or _at_k_name(kind, k, class_id)
    predictions_idx = api.cast(math_ops.convert_to_tensor(predictions_idx), "int64")
    labels = _dense_labels(labels, predictions_idx, f"{kind}_at_k")
    other = "false_negative" if kind == "recall" else "false_positive"
    with variable_scope(None, default_name=scope):
        tp_rows, fp_rows, fn_rows = _set_counts(labels, predictions_idx, class_id)
        tp, tp_update = _streamed(tp_rows, weights, _at_k_name("true_positive", k, class_id))
        rest, rest_update = _streamed(fn_rows if kind == "recall" else fp_rows, weights,
                                      _at_k_name(other, k, class_id))
        value = api.divide(tp, tp + rest, name="value")
        update_op = api.divide(tp_update, tp_update + rest_update, name="update")
    return _finish(value, update_op, metrics_collections, updates_collections)


def _top_k_indices(predictions, k) -> Symbol:
    if k < 1:
        raise ValueError(f"Invalid k={k}.")
    return top_k(math_ops.convert_to_tensor(predictions), k).indices


def recall_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                    metrics_collections=None, updates_collections=None,
                    name=None) -> tuple[Symbol, Symbol]:
    """Recall of the given top-k class ids ``predictions_idx [..., k]``: how many of the label
    set's members they find, over all rows (``class_id``: of that class alone).

    Parameters
    ----------
    labels : Symbol
        int ``[..., num_labels]`` or ``[...]`` (module docstring).
    predictions_idx : Symbol
        int ``[..., k]``, the predicted class ids.
    k : int, optional
        Only names the scope (``recall_at_<k>``; ``recall_at_k`` without it).
    class_id : int, optional
    weights : Symbol or number, optional
        Per row, broadcastable to ``[...]``.
    metrics_collections, updates_collections : list of str, optional
    name : str, optional

    Returns
    -------
    (Symbol, Symbol)
        ``value`` and ``update_op``, float64; NaN while there is no label to find.
    """
    return _top_k_ratio("recall", labels, predictions_idx, k, class_id, weights,
                        metrics_collections, updates_collections, name)


def precision_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                       metrics_collections=None, updates_collections=None,
                       name=None) -> tuple[Symbol, Symbol]:
    """Precision of the given top-k class ids: the share of them in the row's label set
    (``class_id``: over the rows predicting that class); as :func:`recall_at_top_k`."""
    return _top_k_ratio("precision", labels, predictions_idx, k, class_id, weights,
                        metrics_collections, updates_collections, name)


def recall_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """:func:`recall_at_top_k` of the ``k`` highest ``predictions [..., num_classes]`` (the
    lower class id first among equal scores); scope ``recall_at_<k>[_class<id>]``."""
    return recall_at_top_k(labels, _top_k_indices(predictions, k), k, class_id, weights,
                           metrics_collections, updates_collections, name)


def precision_at_k(labels, predictions, k, class_id=None, weights=None,
                   metrics_collections=None, updates_collections=None,
                   name=None) -> tuple[Symbol, Symbol]:
    """:func:`precision_at_top_k` of the ``k`` highest ``predictions``; scope
    ``precision_at_<k>[_class<id>]``."""
    return precision_at_top_k(labels, _top_k_indices(predictions, k), k, class_id, weights,
                              metrics_collections, updates_collections, name)


sparse_precision_at_k = precision_at_k  # TF 1.15's deprecated name of the same function


def _average_precisions(labels, predictions_idx) -> Symbol:
    """Per row, float64: the sum over ranks j of (precision at j) where the j-th prediction is
    a label, over ``min(k, number of labels >= 0)`` (NaN for a row without one, as TF)."""
    found, _, _ = _hits(labels, predictions_idx)
    found = api.cast(found, "float64")
    k = _shape(predictions_idx).as_list()[-1]
    ranks = api.constant(np.arange(1, k + 1, dtype=np.float64))
    precisions = math_ops.cumsum(found, axis=_shape(found).ndims - 1) / ranks
    relevant = api.reduce_sum(api.cast(api.greater_equal(labels, 0), "float64"), -1)
    return api.reduce_sum(precisions * found, -1) / api.minimum(relevant, float(k))


def _streamed_average_precision(labels, predictions_idx, weights, metrics_collections,
                                updates_collections, scope):
    """The mean over rows (weighted) of :func:`_average_precisions`: float64 ``max`` (the rows'
    weight) and ``total`` in scope ``scope``; 0 before any row."""
    with variable_scope(None, default_name=scope):
        with current_context().name_scope("average_precision"):  # TF's: its Max ops apart
            precisions = _average_precisions(labels, predictions_idx)
        if weights is None:
            batch_max = api.cast(array_ops.size(precisions), "float64")
        else:
            weights = api.cast(math_ops.convert_to_tensor(weights), "float64")
            _check_multipliable(precisions, weights)
            weights = weights * array_ops.ones_like(precisions)
            precisions, batch_max = precisions * weights, api.reduce_sum(weights)
        max_var = _metric_variable([], "float64", "max")
        total = _metric_variable([], "float64", "total")
        max_update = api.assign_add(max_var, batch_max)
        total_update = api.assign_add(total, api.reduce_sum(precisions))
        value = _ratio(total, max_var, "mean")
        update_op = _ratio(total_update, max_update, "update")
    return _finish(value, update_op, metrics_collections, updates_collections)


def average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None,
                           updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """The mean over rows of the average precision of the ``k`` highest ``predictions``.

    Parameters
    ----------
    labels : Symbol
        int ``[..., num_labels]`` or ``[...]``; entries below 0 or from ``num_classes`` up
        are padding.
    predictions : Symbol
        Scores ``[..., num_classes]``.
    k : int
    weights : Symbol or number, optional
        Per row: the mean is weighted.
    metrics_collections, updates_collections : list of str, optional
    name : str, optional
        The scope (default ``average_precision_at_<k>``): float64 ``max:0`` (the rows' weight)
        and ``total:0`` (their average precisions).

    Returns
    -------
    (Symbol, Symbol)
        ``value`` (0 before any row) and ``update_op``.
    """
    predictions = math_ops.convert_to_tensor(predictions)
    predictions_idx = api.cast(_top_k_indices(predictions, k), "int64")
    labels = _dense_labels(labels, predictions_idx, "average_precision_at_k")
    # as TF, a label >= num_classes is padding (-1): no prediction finds it, nor counts it
    num_classes = _shape(predictions).as_list()[-1]
    if num_classes is None:  # known at run time: the shape's last entry
        num_classes = api.cast(array_ops.gather(array_ops.shape(predictions),
                                                _shape(predictions).ndims - 1), "int64")
    labels = api.where(api.greater_equal(labels, num_classes),
                       -1 * array_ops.ones_like(labels), labels)
    return _streamed_average_precision(labels, predictions_idx, weights, metrics_collections,
                                       updates_collections,
                                       name or _at_k_name("average_precision", k))


def average_precision_at_top_k(labels, predictions_idx, weights=None, metrics_collections=None,
                               updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """:func:`average_precision_at_k` of given top-k class ids ``predictions_idx [..., k]``
    (TF's ``_streaming_sparse_average_precision_at_top_k``, tf.contrib.metrics'
    ``streaming_sparse_average_precision_at_top_k``): labels below 0 are padding; scope
    ``average_precision_at_top_k``."""
    predictions_idx = api.cast(math_ops.convert_to_tensor(predictions_idx), "int64")
    labels = _dense_labels(labels, predictions_idx, "average_precision_at_top_k")
    return _streamed_average_precision(labels, predictions_idx, weights, metrics_collections,
                                       updates_collections, name or "average_precision_at_top_k")


sparse_average_precision_at_k = average_precision_at_k  # TF 1.15's deprecated name
