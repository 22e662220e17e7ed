"""The heads of TF 1.15's canned estimators (``canned/head.py``): what a model's logits become
in each mode — predictions, the loss, the evaluation metrics and the train op.

- binary classification (``n_classes=2``): sigmoid cross-entropy on one logit;
- multi-class classification: sparse softmax cross-entropy on ``n_classes`` logits;
- regression: the squared error on ``label_dimension`` outputs.

The training loss is the per-example losses times the weights (``weight_column``), reduced by
``loss_reduction`` (TF 1.15's canned estimators: ``SUM``).  Predictions hold what TF's do:
``classes`` and ``all_classes`` are strings (``label_vocabulary``'s entries, else the ids' digits)
that no executor holds: ``index_to_string`` (ops/lookup.py) makes them when they are fetched.
String labels (``label_vocabulary``) become ids before the run (``string_to_index``).
"""
from __future__ import annotations

import numpy as np

from ...nnvm.symbol import create_op
from ..api import argmax, cast, constant, control_dependencies, identity, maximum, to_float
from ..array_ops import concat, expand_dims, reshape, zeros_like
from ..check_ops import assert_greater_equal, assert_less_equal
from ..loss_functions import Reduction, compute_weighted_loss
from ..metrics import accuracy, auc, mean, precision, recall
from ..nn.functions import (
    sigmoid,
    sigmoid_cross_entropy_with_logits,
    softmax,
    sparse_softmax_cross_entropy_with_logits,
)
from ..train import get_global_step
from .model_fn import EstimatorSpec, ModeKeys

__all__ = ["binary_or_multi_class_head", "regression_head"]


def _weights(features, weight_column):
    """The examples' weights ``[batch, 1]`` (None without ``weight_column``)."""
    if weight_column is None:
        return None
    key = weight_column if isinstance(weight_column, str) else weight_column.key
    if key not in features:
        raise ValueError(f"weight_column {key!r} is not in features (they have "
                         f"{sorted(features)})")
    return reshape(to_float(features[key]), [-1, 1])


def _as_column(labels, width: int):
    """``labels`` as ``[batch, width]``: a vector gets a trailing axis, the width is checked
    (TF's ``_check_dense_labels_match_logits_and_reshape``)."""
    if labels is None:
        raise ValueError("You must provide a labels Tensor. Given: None. Suggested "
                         "troubleshooting steps: Check that your data contain your label "
                         "feature. Check that your input_fn properly parses and returns labels.")
    if isinstance(labels, dict):
        raise ValueError(  # noqa: TRY004 - TF's
            f"labels must be a Tensor, given a dict with keys {sorted(labels)}")
    shape = labels.get_shape()
    if shape.ndims == 1:
        labels = expand_dims(labels, -1)
    dims = labels.get_shape().as_list() if shape.ndims is not None else None
    if dims is not None and dims[-1] is not None and dims[-1] != width:
        raise ValueError(f"Mismatched label shape. Expected labels dimension={width}.  "
                         f"Received {dims[-1]}. Suggested Fix:If your classifier expects "
                         f"one-hot encoding label,check your n_classes argument to the "
                         f"estimator and/or the shape of your label. Otherwise, check the "
                         f"shape of your label.")  # TF's words, spaces as they are
    return labels


def _in_range(labels, n_classes: int):
    """``labels`` checked in ``[0, n_classes - 1]`` when the graph runs (TF's
    ``_assert_range``: an InvalidArgumentError)."""
    checks = [assert_less_equal(labels, cast(n_classes - 1, labels.dtype),
                                message="Labels must <= n_classes - 1"),
              assert_greater_equal(labels, cast(0, labels.dtype), message="Labels must >= 0")]
    with control_dependencies(checks):
        return identity(labels)


def _all_class_ids(logits):
    """``[batch, n_classes]`` int32: each row ``0 .. n_classes - 1``."""
    classes = logits.get_shape().as_list()[-1]
    return cast(zeros_like(logits), "int32") + constant(np.arange(classes, dtype=np.int32))


def _with_classes(predictions, vocabulary):
    """``predictions`` plus TF's ``classes`` and ``all_classes``: the ids as strings (TF's
    ``as_string``, or the vocabulary's ``index_to_string_table_from_tensor``: 'UNK' past its
    end)."""
    names = {"vocabulary": tuple(vocabulary or ())}
    return {**predictions,
            "classes": create_op("index_to_string", predictions["class_ids"], **names,
                                 name="str_classes"),
            "all_classes": create_op("index_to_string", predictions["all_class_ids"], **names,
                                     name="all_classes")}


def _label_ids(labels, vocabulary, binary: bool):
    """String ``labels`` as their ids in ``vocabulary`` (-1: not in it, which the range check
    refuses as TF's), or ``labels`` as they are without one."""
    if vocabulary is None or labels is None or isinstance(labels, dict):
        return labels
    if labels.dtype != "string" and binary:  # TF's table lookup's error
        raise TypeError(f"Signature mismatch. Keys must be dtype <dtype: 'string'>, got "
                        f"{labels.dtype}.")
    if labels.dtype != "string":
        raise ValueError(f"Labels dtype should be string if there is a vocabulary. Instead "
                         f"got {labels.dtype}")
    return create_op("string_to_index", labels, vocabulary=tuple(vocabulary),
                     name="class_id_lookup")


class _Head:
    """What the three heads share: the loss, the spec of each mode."""

    def __init__(self, logits_dimension, weight_column, loss_reduction, vocabulary=None):
        if loss_reduction not in Reduction.all() or loss_reduction == Reduction.NONE:
            raise ValueError(f"Invalid loss_reduction: {loss_reduction}")
        self.logits_dimension = logits_dimension
        self._weight_column, self._loss_reduction = weight_column, loss_reduction
        self._vocabulary = vocabulary

    def create_estimator_spec(self, features, mode, logits, labels=None, train_op_fn=None):
        """The ``EstimatorSpec`` of ``mode``; ``train_op_fn(loss)`` makes the train op."""
        predictions = self._predictions(logits)
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode, predictions=predictions)
        labels = self._labels(_label_ids(labels, self._vocabulary,
                                             self.logits_dimension == 1))
        unreduced = self._unreduced_loss(labels, logits)
        weights = _weights(features, self._weight_column)
        loss = compute_weighted_loss(unreduced, 1.0 if weights is None else weights,
                                     reduction=self._loss_reduction)
        if mode == ModeKeys.EVAL:
            return EstimatorSpec(mode, predictions=predictions, loss=loss,
                                 eval_metric_ops=self._metrics(labels, predictions, weights,
                                                               unreduced))
        if train_op_fn is None:
            raise ValueError("train_op_fn cannot be None.")
        return EstimatorSpec(mode, predictions=predictions, loss=loss,
                             train_op=train_op_fn(loss))


class _BinaryHead(_Head):
    def __init__(self, weight_column, loss_reduction, vocabulary):
        super().__init__(1, weight_column, loss_reduction, vocabulary)

    def _predictions(self, logits):
        two_class = concat([zeros_like(logits), logits], axis=-1)
        return _with_classes({"logits": logits, "logistic": sigmoid(logits),
                              "probabilities": softmax(two_class),
                              "class_ids": expand_dims(argmax(two_class, axis=-1), -1),
                              "all_class_ids": _all_class_ids(two_class)}, self._vocabulary)

    def _labels(self, labels):
        return _in_range(to_float(_as_column(labels, 1)), 2)

    def _unreduced_loss(self, labels, logits):
        return sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)

    def _metrics(self, labels, predictions, weights, unreduced):
        class_ids = to_float(predictions["class_ids"])
        logistic = predictions["logistic"]
        label_mean = mean(labels, weights, name="label/mean")
        return {
            "average_loss": mean(unreduced, weights, name="average_loss"),
            "accuracy": accuracy(labels, class_ids, weights, name="accuracy"),
            "precision": precision(labels, class_ids, weights, name="precision"),
            "recall": recall(labels, class_ids, weights, name="recall"),
            "prediction/mean": mean(logistic, weights, name="prediction/mean"),
            "label/mean": label_mean,
            "accuracy_baseline": tuple(maximum(v, 1.0 - v) for v in label_mean),
            "auc": auc(labels, logistic, weights, name="auc"),
            "auc_precision_recall": auc(labels, logistic, weights, curve="PR",
                                        name="auc_precision_recall")}


class _MultiClassHead(_Head):
    def __init__(self, n_classes, weight_column, loss_reduction, vocabulary):
        super().__init__(n_classes, weight_column, loss_reduction, vocabulary)

    def _predictions(self, logits):
        return _with_classes({"logits": logits, "probabilities": softmax(logits),
                              "class_ids": expand_dims(argmax(logits, axis=-1), -1),
                              "all_class_ids": _all_class_ids(logits)}, self._vocabulary)

    def _labels(self, labels):
        labels = _as_column(labels, 1)
        if not labels.dtype.is_integer:
            raise ValueError(f"Labels dtype should be integer. Instead got {labels.dtype.name}.")
        return _in_range(cast(labels, "int64"), self.logits_dimension)

    def _unreduced_loss(self, labels, logits):
        return expand_dims(sparse_softmax_cross_entropy_with_logits(
            labels=reshape(labels, [-1]), logits=logits), -1)

    def _metrics(self, labels, predictions, weights, unreduced):
        return {"average_loss": mean(unreduced, weights, name="average_loss"),
                "accuracy": accuracy(labels, predictions["class_ids"], weights,
                                     name="accuracy")}


class _RegressionHead(_Head):
    def _predictions(self, logits):
        return {"predictions": logits}

    def _labels(self, labels):
        return to_float(_as_column(labels, self.logits_dimension))

    def _unreduced_loss(self, labels, logits):
        return (logits - labels) * (logits - labels)

    def _metrics(self, labels, predictions, weights, unreduced):
        return {"average_loss": mean(unreduced, weights, name="average_loss"),
                "prediction/mean": mean(predictions["predictions"], weights,
                                        name="prediction/mean"),
                "label/mean": mean(labels, weights, name="label/mean")}


def binary_or_multi_class_head(n_classes, weight_column=None, label_vocabulary=None,
                               loss_reduction=Reduction.SUM):
    """TF's ``_binary_logistic_or_multi_class_head``: the binary head for ``n_classes=2``,
    else the multi-class one.  With ``label_vocabulary`` (strings) labels are strings from it,
    and predictions' ``classes`` its entries."""
    if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
        raise ValueError(f"label_vocabulary should be a list or a tuple. Given type: "
                         f"{type(label_vocabulary)}")
    if n_classes is None or n_classes < 2:
        raise ValueError(f"n_classes must be > 1 for classification: {n_classes}")
    vocabulary = None if label_vocabulary is None else tuple(label_vocabulary)
    if n_classes == 2:
        return _BinaryHead(weight_column, loss_reduction, vocabulary)
    return _MultiClassHead(int(n_classes), weight_column, loss_reduction, vocabulary)


def regression_head(label_dimension=1, weight_column=None, loss_reduction=Reduction.SUM):
    """TF's ``_regression_head``: the squared error on ``label_dimension`` outputs."""
    if label_dimension < 1:
        raise ValueError(f"Invalid label_dimension {label_dimension}.")
    return _RegressionHead(int(label_dimension), weight_column, loss_reduction)


def minimize_fn(optimizer):
    """``train_op_fn``: ``optimizer`` minimizing the loss, stepping the global step."""
    return lambda loss: optimizer.minimize(loss, global_step=get_global_step())
