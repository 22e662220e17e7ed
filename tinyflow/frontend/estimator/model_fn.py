"""What a ``model_fn`` gets and gives: ``tf.estimator.ModeKeys`` and ``tf.estimator.EstimatorSpec``
(TensorFlow 1.15's ``model_fn.py``, its checks and messages)."""
from __future__ import annotations

import math
from typing import Any, NamedTuple

from ...nnvm.symbol import Symbol, current_context
from ..array_ops import reshape
from ..monitored_session import Scaffold
from ..session_run_hooks import SessionRunHook

__all__ = ["EstimatorSpec", "ModeKeys"]


class ModeKeys:
    """The mode a ``model_fn`` builds its graph for."""

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


# the metric evaluate() adds, the mean loss over the batches
LOSS_METRIC_KEY = "loss"


class _Spec(NamedTuple):
    mode: str
    predictions: Any
    loss: Any
    train_op: Any
    eval_metric_ops: dict
    export_outputs: Any
    training_chief_hooks: tuple
    training_hooks: tuple
    scaffold: Scaffold
    evaluation_hooks: tuple
    prediction_hooks: tuple


class EstimatorSpec(_Spec):
    """What a ``model_fn`` returns, checked as TensorFlow checks it.

    TRAIN needs ``loss`` and ``train_op``; EVAL needs ``loss``; PREDICT needs ``predictions``
    (a tensor, or a dict of tensors).  ``loss`` is a scalar (shape ``[1]`` is reshaped);
    ``eval_metric_ops`` is ``{name: (value, update_op)}``, as ``tf.metrics`` give them; the
    hooks are ``tf.train.SessionRunHook`` s; ``scaffold`` defaults to a new
    ``tf.train.Scaffold``.  Every tensor must be of the current graph (the one the
    Estimator's ``model_fn`` call builds).  ``export_outputs`` is kept as given: TinyFlow
    writes no SavedModel.
    """

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None,
                export_outputs=None, training_chief_hooks=None, training_hooks=None,
                scaffold=None, evaluation_hooks=None, prediction_hooks=None):
        if train_op is None:
            if mode == ModeKeys.TRAIN:
                raise ValueError("Missing train_op.")
        else:
            _check_in_graph(_check_tensor_or_op(train_op, "train_op"), "train_op")
        loss = _checked_loss(loss, mode)
        predictions = _checked_predictions(predictions, mode)
        scaffold = scaffold or Scaffold()
        if not isinstance(scaffold, Scaffold):
            raise TypeError(f"scaffold must be tf.train.Scaffold. Given: {scaffold}")
        return super().__new__(
            cls, mode, predictions, loss, train_op, _checked_metrics(eval_metric_ops),
            export_outputs, _checked_hooks(training_chief_hooks),
            _checked_hooks(training_hooks), scaffold, _checked_hooks(evaluation_hooks),
            _checked_hooks(prediction_hooks))

    def _replace(self, **changes):
        if "mode" in changes and changes["mode"] != self.mode:
            raise ValueError("mode of EstimatorSpec cannot be changed.")
        return EstimatorSpec(**{**self._asdict(), **changes})


_GRAPH_MESSAGE = ('{0} with "{1}" must be from the default graph. Possible causes of this error '
                  'include: \n\n1) {0} was created outside the context of the default graph.'
                  '\n\n2) The object passed through to EstimatorSpec was not created in the '
                  'most recent call to "model_fn".')


def _check_in_graph(tensor, what, name=None):
    if tensor.graph is not current_context():
        raise ValueError(_GRAPH_MESSAGE.format(what, name or tensor.name))


def _check_tensor(value, name):
    if not isinstance(value, Symbol) or value.is_operation or len(value.outputs) != 1:
        raise TypeError(f"{name} must be Tensor, given: {value}")
    return value


def _check_tensor_or_op(value, name):
    if not isinstance(value, Symbol):
        raise TypeError(f"{name} must be Operation or Tensor, given: {value}")
    return value


def _checked_loss(loss, mode):
    if loss is None:
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
            raise ValueError("Missing loss.")
        return None
    loss = _check_tensor(loss, "loss")
    shape = loss.get_shape()
    if shape.is_fully_defined() and math.prod(shape.as_list()) != 1:
        raise ValueError(f"Loss must be scalar, given: {loss}")
    if not shape.is_compatible_with([]):
        loss = reshape(loss, [])
    _check_in_graph(loss, "loss")
    return loss


def _checked_predictions(predictions, mode):
    if predictions is None:
        if mode == ModeKeys.PREDICT:
            raise ValueError("Missing predictions.")
        return {}
    if isinstance(predictions, dict):
        for key, value in predictions.items():
            _check_tensor(value, f"predictions[{key}]")
            _check_in_graph(value, "prediction values", f"{key}: {value.name}")
        return dict(predictions)
    _check_in_graph(_check_tensor(predictions, "predictions"), "prediction values")
    return predictions


def _checked_metrics(eval_metric_ops) -> dict:
    if eval_metric_ops is None:
        return {}
    if not isinstance(eval_metric_ops, dict):
        raise TypeError(f"eval_metric_ops must be a dict, given: {eval_metric_ops}")
    for key, value in eval_metric_ops.items():
        if not isinstance(value, tuple) or len(value) != 2:
            raise TypeError(f"Values of eval_metric_ops must be (metric_value, update_op) "
                            f"tuples, given: {value} for key: {key}")
        for member in value:
            _check_tensor_or_op(member, f"eval_metric_ops[{key}]")
            _check_in_graph(member, "eval_metric_ops", f"{key}: {member.name}")
    return dict(eval_metric_ops)


def _checked_hooks(hooks) -> tuple:
    hooks = tuple(hooks or ())
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook}")
    return hooks
