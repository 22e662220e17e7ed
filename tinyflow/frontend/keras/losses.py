"""``tf.keras.losses`` as TensorFlow 1.15 has them: per-sample loss functions
``fn(y_true, y_pred)`` (the last axis reduced) and loss classes whose call weights them by
``sample_weight`` and reduces them (``SUM_OVER_BATCH_SIZE`` by default: the weighted sum over
the number of per-sample losses).  Probabilities (``from_logits=False``) are clipped to
``[epsilon, 1 - epsilon]`` (1e-7) before their log, as Keras' backend does.  These losses are
not added to ``tf.GraphKeys.LOSSES`` (``tf.losses``' are)."""
from __future__ import annotations

from ...nnvm.symbol import Symbol
from .. import api, array_ops
from ..framework import name_scope
from ..math_ops import convert_to_tensor
from ..nn import functions as nn
from ..unsupported import unsupported
from .backend import epsilon

__all__ = [
    "MAE", "MSE", "BinaryCrossentropy", "CategoricalCrossentropy", "Loss", "MeanAbsoluteError",
    "MeanSquaredError", "Reduction", "SparseCategoricalCrossentropy", "binary_crossentropy",
    "categorical_crossentropy", "deserialize", "get", "hinge", "mae", "mean_absolute_error",
    "mean_squared_error", "mse", "serialize", "sparse_categorical_crossentropy",
    "squared_hinge",
]


def _pair(y_true, y_pred):
    y_pred = convert_to_tensor(y_pred)
    return api.cast(convert_to_tensor(y_true), y_pred.dtype), y_pred


def _logits_of(output, op_type):
    """The input of ``output``'s op when that op is ``op_type`` (``"Softmax"``, ``"Sigmoid"``):
    Keras then computes the loss from those logits, as if ``from_logits`` (TF 1.15's
    backend: no probability collapses to 0 while training); else None."""
    return Symbol([output.op.inputs[0]]) if output.op.type == op_type else None


def _clipped(probabilities):
    return api.clip_by_value(probabilities, epsilon(), 1.0 - epsilon())


def mean_squared_error(y_true, y_pred):
    """``mean((y_pred - y_true)**2, axis=-1)``."""
    y_true, y_pred = _pair(y_true, y_pred)
    return api.reduce_mean(api.square(y_pred - y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """``mean(|y_pred - y_true|, axis=-1)``."""
    y_true, y_pred = _pair(y_true, y_pred)
    return api.reduce_mean(api.abs(y_pred - y_true), axis=-1)


def hinge(y_true, y_pred):
    """``mean(max(1 - y_true * y_pred, 0), axis=-1)`` (labels -1 or 1; 0 / 1 made -1 / 1)."""
    y_true, y_pred = _pair(y_true, y_pred)
    return api.reduce_mean(nn.relu(1.0 - _signed(y_true) * y_pred), axis=-1)


def squared_hinge(y_true, y_pred):
    """``mean(max(1 - y_true * y_pred, 0)**2, axis=-1)``."""
    y_true, y_pred = _pair(y_true, y_pred)
    return api.reduce_mean(api.square(nn.relu(1.0 - _signed(y_true) * y_pred)), axis=-1)


def _signed(labels):
    """Keras' hinge: labels of 0 / 1 become -1 / 1 (when every label is 0 or 1)."""
    binary = api.reduce_all(api.logical_or(api.equal(labels, 0.0), api.equal(labels, 1.0)))
    # a scalar condition (tf.where's needs x's shape): a blend by it as 1.0 / 0.0
    return labels + (labels - 1.0) * api.cast(binary, labels.dtype)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    """``-sum(y_true * log(p), axis=-1)``, ``p`` the probabilities ``y_pred`` (rescaled to sum
    to 1, clipped) or ``softmax(y_pred)`` when ``from_logits``; ``label_smoothing`` mixes the
    labels with the uniform distribution."""
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        classes = api.cast(array_ops.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / classes
    logits = y_pred if from_logits else _logits_of(y_pred, "Softmax")
    if logits is not None:
        return nn.softmax_cross_entropy_with_logits_v2(labels=y_true, logits=logits, axis=-1)
    y_pred = _clipped(y_pred / api.reduce_sum(y_pred, axis=-1, keepdims=True))
    return -api.reduce_sum(y_true * api.log(y_pred), axis=-1)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    """``-log(p[y_true])`` per sample: ``y_true`` class ids (any int or float type, shape
    ``y_pred``'s without its last axis, or with it of size 1), ``p`` as
    :func:`categorical_crossentropy`'s (clipped probabilities are not rescaled)."""
    y_pred = convert_to_tensor(y_pred)
    if axis not in (-1, y_pred.get_shape().ndims - 1):
        raise ValueError(f"sparse_categorical_crossentropy: only the last axis is supported "
                         f"by TinyFlow, got axis={axis}")
    logits = y_pred if from_logits else _logits_of(y_pred, "Softmax")
    logits = api.log(_clipped(y_pred)) if logits is None else logits
    classes = y_pred.get_shape()[-1].value
    labels = array_ops.reshape(api.cast(convert_to_tensor(y_true), "int64"), [-1])
    flat = array_ops.reshape(logits, [-1, classes if classes is not None else
                                      array_ops.shape(logits)[-1]])
    losses = nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=flat)
    ndims = y_pred.get_shape().ndims
    if ndims is not None and ndims >= 3:
        losses = array_ops.reshape(losses, array_ops.shape(y_pred)[:-1])
    return losses


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    """``mean(-(y * log(p + eps) + (1 - y) * log(1 - p + eps)), axis=-1)``, ``p`` the clipped
    probabilities; from logits (or a sigmoid's input), the sigmoid cross-entropy."""
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    logits = y_pred if from_logits else _logits_of(y_pred, "Sigmoid")
    if logits is not None:
        losses = nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=logits)
    else:
        p = _clipped(y_pred)
        losses = -(y_true * api.log(p + epsilon()) + (1.0 - y_true) * api.log(
            1.0 - p + epsilon()))
    return api.reduce_mean(losses, axis=-1)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error


class Reduction:
    """How a loss class reduces the weighted per-sample losses (TF's ReductionV2)."""

    AUTO, NONE, SUM, SUM_OVER_BATCH_SIZE = "auto", "none", "sum", "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


class Loss:
    """A loss object: ``loss(y_true, y_pred, sample_weight=None)`` is the reduced, weighted
    loss of :meth:`call`'s per-sample losses."""

    def __init__(self, reduction=Reduction.AUTO, name=None) -> None:
        Reduction.validate(reduction)
        self.reduction, self.name = reduction, name

    def call(self, y_true, y_pred):
        raise NotImplementedError("subclasses of tf.keras.losses.Loss define call()")

    def __call__(self, y_true, y_pred, sample_weight=None):
        with name_scope(self.name or type(self).__name__):
            losses = self.call(y_true, y_pred)
            if sample_weight is not None:
                losses = losses * _matched(api.cast(sample_weight, losses.dtype), losses)
            if self.reduction == Reduction.NONE:
                return losses
            total = api.reduce_sum(losses)
            if self.reduction == Reduction.SUM:
                return total
            return total / api.cast(array_ops.size(losses), losses.dtype)

    def get_config(self) -> dict:
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _matched(weights, losses):
    """``sample_weight`` of shape ``[batch, 1]`` against losses ``[batch]``: squeezed."""
    ndims, rank = weights.get_shape().ndims, losses.get_shape().ndims
    if ndims is not None and rank is not None and ndims == rank + 1 and \
            weights.get_shape()[-1].value == 1:
        return array_ops.squeeze(weights, [-1])
    return weights


class _FunctionLoss(Loss):
    _function, _default_name = None, None

    def __init__(self, reduction=Reduction.AUTO, name=None, **kwargs) -> None:
        super().__init__(reduction, name or self._default_name)
        self._kwargs = kwargs

    def call(self, y_true, y_pred):
        return type(self)._function(y_true, y_pred, **self._kwargs)

    def get_config(self) -> dict:
        return {**super().get_config(), **self._kwargs}


class MeanSquaredError(_FunctionLoss):
    """:func:`mean_squared_error`, reduced."""

    _function, _default_name = mean_squared_error, "mean_squared_error"

    def __init__(self, reduction=Reduction.AUTO, name="mean_squared_error") -> None:
        super().__init__(reduction, name)


class MeanAbsoluteError(_FunctionLoss):
    """:func:`mean_absolute_error`, reduced."""

    _function, _default_name = mean_absolute_error, "mean_absolute_error"

    def __init__(self, reduction=Reduction.AUTO, name="mean_absolute_error") -> None:
        super().__init__(reduction, name)


class CategoricalCrossentropy(_FunctionLoss):
    """:func:`categorical_crossentropy`, reduced."""

    _function = categorical_crossentropy

    def __init__(self, from_logits=False, label_smoothing=0, reduction=Reduction.AUTO,
                 name="categorical_crossentropy") -> None:
        super().__init__(reduction, name, from_logits=from_logits,
                         label_smoothing=label_smoothing)


class SparseCategoricalCrossentropy(_FunctionLoss):
    """:func:`sparse_categorical_crossentropy`, reduced."""

    _function = sparse_categorical_crossentropy

    def __init__(self, from_logits=False, reduction=Reduction.AUTO,
                 name="sparse_categorical_crossentropy") -> None:
        super().__init__(reduction, name, from_logits=from_logits)


class BinaryCrossentropy(_FunctionLoss):
    """:func:`binary_crossentropy`, reduced."""

    _function = binary_crossentropy

    def __init__(self, from_logits=False, label_smoothing=0, reduction=Reduction.AUTO,
                 name="binary_crossentropy") -> None:
        super().__init__(reduction, name, from_logits=from_logits,
                         label_smoothing=label_smoothing)


_FUNCTIONS = {name: globals()[name] for name in __all__
              if name[0].islower() and name not in ("deserialize", "get", "serialize")}


def serialize(loss):
    return loss.__name__ if callable(loss) and not isinstance(loss, Loss) else {
        "class_name": type(loss).__name__, "config": loss.get_config()}


def deserialize(name, custom_objects=None):
    """The loss function named ``name`` (``"mse"``), or a loss class from its config."""
    if custom_objects and isinstance(name, str) and name in custom_objects:
        return custom_objects[name]
    if isinstance(name, dict):
        made = globals().get(name["class_name"])
        if isinstance(made, type) and issubclass(made, Loss):
            return made.from_config(name.get("config", {}))
        raise ValueError(f"Unknown loss function: {name['class_name']}")
    if name in _FUNCTIONS:
        return _FUNCTIONS[name]
    raise ValueError(f"Unknown loss function: {name}")


def get(identifier):
    """None, a callable, a name or a serialized loss."""
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    raise ValueError(f"Could not interpret loss function identifier: {identifier!r}")


def __getattr__(name):
    raise unsupported("tf.keras.losses.", "tinyflow.keras.losses", name,
                      {"tf.keras.losses.": __all__})


def __dir__():
    return sorted(__all__)
