"""``tf.contrib.metrics`` as TensorFlow 1.15 has it: the ``streaming_*`` names of
``tf.metrics``' functions, which take ``predictions`` before ``labels`` (the rest of their
arguments in the same order), ``streaming_recall_at_k``'s mean of ``tf.nn.in_top_k``, and
``aggregate_metrics`` / ``aggregate_metric_map``.  SparseTensor labels are not supported;
contrib's other metrics (``streaming_covariance``, ``streaming_pearson_correlation``,
``streaming_concat``, ``streaming_dynamic_auc``, ``streaming_*_rate``...) are an
AttributeError saying TinyFlow does not support them."""
from __future__ import annotations

from ...nnvm.symbol import Symbol
from .. import api, metrics
from ..metrics_at_k import average_precision_at_top_k
from ..nn.functions import in_top_k

# streaming name -> tf.metrics function, arguments (predictions, labels, *rest)
_SWAPPED = {
    "streaming_accuracy": metrics.accuracy,
    "streaming_auc": metrics.auc,
    "streaming_false_negatives": metrics.false_negatives,
    "streaming_false_negatives_at_thresholds": metrics.false_negatives_at_thresholds,
    "streaming_false_positives": metrics.false_positives,
    "streaming_false_positives_at_thresholds": metrics.false_positives_at_thresholds,
    "streaming_mean_absolute_error": metrics.mean_absolute_error,
    "streaming_mean_cosine_distance": metrics.mean_cosine_distance,
    "streaming_mean_iou": metrics.mean_iou,
    "streaming_mean_relative_error": metrics.mean_relative_error,
    "streaming_mean_squared_error": metrics.mean_squared_error,
    "streaming_precision": metrics.precision,
    "streaming_precision_at_thresholds": metrics.precision_at_thresholds,
    "streaming_recall": metrics.recall,
    "streaming_recall_at_thresholds": metrics.recall_at_thresholds,
    "streaming_root_mean_squared_error": metrics.root_mean_squared_error,
    "streaming_sensitivity_at_specificity": metrics.sensitivity_at_specificity,
    "streaming_sparse_average_precision_at_k": metrics.average_precision_at_k,
    "streaming_sparse_average_precision_at_top_k": average_precision_at_top_k,
    "streaming_sparse_precision_at_k": metrics.precision_at_k,
    "streaming_sparse_precision_at_top_k": metrics.precision_at_top_k,
    "streaming_sparse_recall_at_k": metrics.recall_at_k,
    "streaming_specificity_at_sensitivity": metrics.specificity_at_sensitivity,
    "streaming_true_negatives": metrics.true_negatives,
    "streaming_true_negatives_at_thresholds": metrics.true_negatives_at_thresholds,
    "streaming_true_positives": metrics.true_positives,
    "streaming_true_positives_at_thresholds": metrics.true_positives_at_thresholds,
}
# the same order of arguments as tf.metrics'
_SAME = {"streaming_mean": metrics.mean, "streaming_mean_tensor": metrics.mean_tensor,
         "streaming_percentage_less": metrics.percentage_below}

__all__ = ["aggregate_metric_map", "aggregate_metrics", "sparse_recall_at_top_k",
           "streaming_recall_at_k"] + list(_SWAPPED) + list(_SAME)


def _swapped(name, metric):
    def streaming(predictions, labels, *args, **kwargs):
        return metric(labels, predictions, *args, **kwargs)
    streaming.__name__ = streaming.__qualname__ = name
    streaming.__doc__ = (f"``tf.metrics.{metric.__name__}`` with ``predictions`` before "
                         f"``labels``:\n\n{metric.__doc__}")
    return streaming


globals().update({name: _swapped(name, metric) for name, metric in _SWAPPED.items()})
globals().update(_SAME)


def sparse_recall_at_top_k(labels, top_k_predictions, class_id=None, weights=None,
                           metrics_collections=None, updates_collections=None, name=None):
    """``tf.metrics.recall_at_top_k`` (contrib's name, labels first)."""
    return metrics.recall_at_top_k(labels, top_k_predictions, None, class_id, weights,
                                   metrics_collections, updates_collections, name)


def streaming_recall_at_k(predictions, labels, k, weights=None, metrics_collections=None,
                          updates_collections=None, name=None) -> tuple[Symbol, Symbol]:
    """The (weighted) share of rows whose one label ``labels [batch]`` is among the ``k``
    highest ``predictions [batch, num_classes]`` (``tf.nn.in_top_k``), streamed as
    ``tf.metrics.mean`` in scope ``recall_at_<k>``."""
    hits = api.cast(in_top_k(predictions, labels, k), "float32")
    return metrics.mean(hits, weights, metrics_collections, updates_collections,
                        name or f"recall_at_{k}")


def aggregate_metrics(*value_update_tuples) -> tuple[list, list]:
    """``[(value, update_op), ...]`` -> ``([value, ...], [update_op, ...])``."""
    if not value_update_tuples:
        raise ValueError("Expected at least one value_tensor/update_op pair")
    values, updates = zip(*value_update_tuples)
    return list(values), list(updates)


def aggregate_metric_map(names_to_tuples) -> tuple[dict, dict]:
    """``{name: (value, update_op)}`` -> ``({name: value}, {name: update_op})``."""
    names = list(names_to_tuples)
    values, updates = aggregate_metrics(*(names_to_tuples[name] for name in names))
    return dict(zip(names, values)), dict(zip(names, updates))


def __getattr__(name):
    raise AttributeError(f"tf.contrib.metrics.{name} is not supported by TinyFlow (module "
                         f"'tinyflow.contrib.metrics' has no attribute {name!r})")
