"""TF 1.15's premade ("canned") estimators over feature columns: ``DNNClassifier``,
``DNNRegressor``, ``LinearClassifier``, ``LinearRegressor``, ``DNNLinearCombinedClassifier``
and ``DNNLinearCombinedRegressor``.

Each is an :class:`~.estimator.Estimator` whose ``model_fn`` builds logits from the features
and hands them to a head (:mod:`.heads`), as TF 1.15's v1 estimators do, with their defaults:

- DNN: ``tf.feature_column.input_layer`` under ``dnn/input_from_feature_columns``, dense
  layers ``dnn/hiddenlayer_<i>`` (``activation_fn`` relu, glorot-uniform kernels, zero
  biases, ``dropout`` while training) and ``dnn/logits``; ``optimizer`` Adagrad, learning
  rate 0.05.
- Linear: ``tf.feature_column.linear_model`` under ``linear`` (``linear/linear_model/<column
  name>/weights``, ``linear/linear_model/bias_weights``); ``optimizer`` Ftrl, learning rate
  0.2.
- DNNLinearCombined: both parts' logits added; Adagrad at 0.001 for the DNN, Ftrl at
  ``min(0.005, 1/sqrt(number of linear columns))`` for the linear part.
- the loss reduced by ``loss_reduction`` ``tf.losses.Reduction.SUM``.

``optimizer`` is a name (``'Adagrad'``, ``'Adam'``, ``'Ftrl'``, ``'RMSProp'``, ``'SGD'``), a
``tf.train.Optimizer`` or a function returning one.
"""
from __future__ import annotations

import math

from .. import feature_column as fc
from ..api import assign_add, control_dependencies, group
from ..framework import GraphKeys, get_collection
from ..init_ops import glorot_uniform_initializer
from ..layers import dense, dropout
from ..loss_functions import Reduction
from ..nn.functions import relu
from ..train import (
    AdagradOptimizer,
    AdamOptimizer,
    FtrlOptimizer,
    GradientDescentOptimizer,
    Optimizer,
    RMSPropOptimizer,
    get_global_step,
)
from ..variable_scope import variable_scope
from .estimator import Estimator
from .heads import binary_or_multi_class_head, minimize_fn, regression_head
from .model_fn import ModeKeys

__all__ = ["DNNClassifier", "DNNLinearCombinedClassifier", "DNNLinearCombinedRegressor",
           "DNNRegressor", "LinearClassifier", "LinearRegressor"]

_OPTIMIZERS = {"Adagrad": AdagradOptimizer, "Adam": AdamOptimizer, "Ftrl": FtrlOptimizer,
               "RMSProp": RMSPropOptimizer, "SGD": GradientDescentOptimizer}
_DNN_LEARNING_RATE, _LINEAR_LEARNING_RATE = 0.05, 0.2
# the combined estimators' own defaults (TF's dnn_linear_combined.py)
_COMBINED_DNN_LEARNING_RATE, _COMBINED_LINEAR_LEARNING_RATE = 0.001, 0.005


def _optimizer(optimizer, learning_rate):
    """TF's ``optimizers.get_optimizer_instance``."""
    if isinstance(optimizer, str):
        if optimizer not in _OPTIMIZERS:
            raise ValueError(f"Unsupported optimizer name: {optimizer}. Supported names are: "
                             f"{tuple(sorted(_OPTIMIZERS))}")
        return _OPTIMIZERS[optimizer](learning_rate=learning_rate)
    if callable(optimizer) and not isinstance(optimizer, Optimizer):
        optimizer = optimizer()
    if not isinstance(optimizer, Optimizer):
        raise ValueError(  # noqa: TRY004 - TF's
            f"The given object is not an Optimizer instance. Given: {optimizer}")
    return optimizer


def _features(features) -> dict:
    if not isinstance(features, dict):
        raise ValueError(  # noqa: TRY004 - TF's
            f"features should be a dictionary of `Tensor`s. Given type: {type(features)}")
    return features


def _dnn_logits(features, mode, units, hidden_units, feature_columns, activation_fn,
                dropout_rate):
    """TF's ``_DNNModel``: the input layer, hidden layers and logits, under ``dnn``'s scope."""
    with variable_scope("input_from_feature_columns"):
        net = fc.input_layer(features, feature_columns)
    for index, width in enumerate(hidden_units):
        net = dense(net, width, activation=activation_fn, name=f"hiddenlayer_{index}",
                    kernel_initializer=glorot_uniform_initializer())
        if dropout_rate is not None and mode == ModeKeys.TRAIN:
            net = dropout(net, rate=dropout_rate, training=True)
    return dense(net, units, activation=None, name="logits",
                 kernel_initializer=glorot_uniform_initializer())


def _checked_dnn(hidden_units, feature_columns, batch_norm):
    if not hidden_units:
        raise ValueError("hidden_units must be a non-empty list of layer widths")
    if not feature_columns:
        raise ValueError("feature_columns must be defined.")
    if batch_norm:
        raise ValueError("batch_norm=True is not supported by TinyFlow's DNN estimators")
    return tuple(int(width) for width in hidden_units), tuple(feature_columns)


def _no_partitioner(**given):
    for name, value in given.items():
        if value is not None:
            raise ValueError(f"{name} is not supported by TinyFlow (variables are not "
                             f"partitioned)")


class _DNN(Estimator):
    def __init__(self, head, hidden_units, feature_columns, model_dir, optimizer,
                 activation_fn, dropout, input_layer_partitioner, config, warm_start_from,
                 batch_norm):
        _no_partitioner(input_layer_partitioner=input_layer_partitioner)
        hidden_units, columns = _checked_dnn(hidden_units, feature_columns, batch_norm)

        def model_fn(features, labels, mode, config):
            with variable_scope("dnn"):
                logits = _dnn_logits(_features(features), mode, head.logits_dimension,
                                     hidden_units, columns, activation_fn, dropout)
            train_op_fn = None if mode != ModeKeys.TRAIN else minimize_fn(
                _optimizer(optimizer, _DNN_LEARNING_RATE))
            return head.create_estimator_spec(features, mode, logits, labels, train_op_fn)

        super().__init__(model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class DNNClassifier(_DNN):
    """TF 1.15's ``tf.estimator.DNNClassifier`` (see the module's docstring)."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, optimizer="Adagrad",
                 activation_fn=relu, dropout=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, batch_norm=False):
        head = binary_or_multi_class_head(n_classes, weight_column, label_vocabulary,
                                          loss_reduction)
        super().__init__(head, hidden_units, feature_columns, model_dir, optimizer,
                         activation_fn, dropout, input_layer_partitioner, config,
                         warm_start_from, batch_norm)


class DNNRegressor(_DNN):
    """TF 1.15's ``tf.estimator.DNNRegressor`` (see the module's docstring)."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, label_dimension=1,
                 weight_column=None, optimizer="Adagrad", activation_fn=relu, dropout=None,
                 input_layer_partitioner=None, config=None, warm_start_from=None,
                 loss_reduction=Reduction.SUM, batch_norm=False):
        head = regression_head(label_dimension, weight_column, loss_reduction)
        super().__init__(head, hidden_units, feature_columns, model_dir, optimizer,
                         activation_fn, dropout, input_layer_partitioner, config,
                         warm_start_from, batch_norm)


class _Linear(Estimator):
    def __init__(self, head, feature_columns, model_dir, optimizer, config, partitioner,
                 warm_start_from, sparse_combiner):
        _no_partitioner(partitioner=partitioner)
        columns = tuple(feature_columns or ())
        if not columns:
            raise ValueError("feature_columns must be defined.")

        def model_fn(features, labels, mode, config):
            with variable_scope("linear"):
                logits = fc.linear_model(_features(features), columns, head.logits_dimension,
                                         sparse_combiner=sparse_combiner)
            train_op_fn = None if mode != ModeKeys.TRAIN else minimize_fn(
                _optimizer(optimizer, _LINEAR_LEARNING_RATE))
            return head.create_estimator_spec(features, mode, logits, labels, train_op_fn)

        super().__init__(model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class LinearClassifier(_Linear):
    """TF 1.15's ``tf.estimator.LinearClassifier`` (see the module's docstring)."""

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Ftrl", config=None, partitioner=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, sparse_combiner="sum"):
        head = binary_or_multi_class_head(n_classes, weight_column, label_vocabulary,
                                          loss_reduction)
        super().__init__(head, feature_columns, model_dir, optimizer, config, partitioner,
                         warm_start_from, sparse_combiner)


class LinearRegressor(_Linear):
    """TF 1.15's ``tf.estimator.LinearRegressor`` (see the module's docstring)."""

    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, partitioner=None, warm_start_from=None,
                 loss_reduction=Reduction.SUM, sparse_combiner="sum"):
        head = regression_head(label_dimension, weight_column, loss_reduction)
        super().__init__(head, feature_columns, model_dir, optimizer, config, partitioner,
                         warm_start_from, sparse_combiner)


class _Combined(Estimator):
    """TF's ``_dnn_linear_combined_model_fn``: the two parts' logits added, each part trained
    by its own optimizer on its own variables, the global step stepped once."""

    def __init__(self, head, model_dir, linear_feature_columns, linear_optimizer,
                 dnn_feature_columns, dnn_optimizer, dnn_hidden_units, dnn_activation_fn,
                 dnn_dropout, config, warm_start_from, linear_sparse_combiner, batch_norm):
        linear_columns = tuple(linear_feature_columns or ())
        dnn_columns = tuple(dnn_feature_columns or ())
        if not linear_columns and not dnn_columns:
            raise ValueError("Either linear_feature_columns or dnn_feature_columns must be "
                             "defined.")
        if dnn_columns:
            dnn_hidden_units, dnn_columns = _checked_dnn(dnn_hidden_units, dnn_columns,
                                                         batch_norm)
        linear_rate = min(_COMBINED_LINEAR_LEARNING_RATE,
                          1 / math.sqrt(max(len(linear_columns), 1)))

        def model_fn(features, labels, mode, config):
            features, parts = _features(features), []
            if dnn_columns:
                with variable_scope("dnn"):
                    parts.append(("dnn", _optimizer(dnn_optimizer, _COMBINED_DNN_LEARNING_RATE),
                                  _dnn_logits(features, mode, head.logits_dimension,
                                              dnn_hidden_units, dnn_columns,
                                              dnn_activation_fn, dnn_dropout)))
            if linear_columns:
                with variable_scope("linear"):
                    parts.append(("linear", _optimizer(linear_optimizer, linear_rate),
                                  fc.linear_model(features, linear_columns,
                                                  head.logits_dimension,
                                                  sparse_combiner=linear_sparse_combiner)))
            logits = parts[0][2] if len(parts) == 1 else parts[0][2] + parts[1][2]
            return head.create_estimator_spec(features, mode, logits, labels,
                                              _combined_train_op_fn(parts))

        super().__init__(model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


def _combined_train_op_fn(parts):
    def train_op_fn(loss):
        steps = [optimizer.minimize(loss, var_list=get_collection(
            GraphKeys.TRAINABLE_VARIABLES, scope=scope + "/")) for scope, optimizer, _ in parts]
        with control_dependencies(steps):
            return group(assign_add(get_global_step(), 1))
    return train_op_fn


class DNNLinearCombinedClassifier(_Combined):
    """TF 1.15's ``tf.estimator.DNNLinearCombinedClassifier`` (see the module's docstring)."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=relu, dnn_dropout=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, batch_norm=False,
                 linear_sparse_combiner="sum"):
        _no_partitioner(input_layer_partitioner=input_layer_partitioner)
        head = binary_or_multi_class_head(n_classes, weight_column, label_vocabulary,
                                          loss_reduction)
        super().__init__(head, model_dir, linear_feature_columns, linear_optimizer,
                         dnn_feature_columns, dnn_optimizer, dnn_hidden_units,
                         dnn_activation_fn, dnn_dropout, config, warm_start_from,
                         linear_sparse_combiner, batch_norm)


class DNNLinearCombinedRegressor(_Combined):
    """TF 1.15's ``tf.estimator.DNNLinearCombinedRegressor`` (see the module's docstring)."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=relu, dnn_dropout=None, label_dimension=1,
                 weight_column=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, batch_norm=False,
                 linear_sparse_combiner="sum"):
        _no_partitioner(input_layer_partitioner=input_layer_partitioner)
        head = regression_head(label_dimension, weight_column, loss_reduction)
        super().__init__(head, model_dir, linear_feature_columns, linear_optimizer,
                         dnn_feature_columns, dnn_optimizer, dnn_hidden_units,
                         dnn_activation_fn, dnn_dropout, config, warm_start_from,
                         linear_sparse_combiner, batch_norm)
