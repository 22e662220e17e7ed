"""``tf.keras.metrics``' functions as TensorFlow 1.15 has them: per-sample accuracies
``fn(y_true, y_pred)`` (1.0 where right, 0.0 where wrong; ``binary_accuracy`` the mean over
the last axis) and the per-sample losses of :mod:`.losses` under their metric names.  The
metric classes (``tf.keras.metrics.Mean``, ``AUC``...: stateful objects) are not supported;
``tf.metrics`` has TF-1's streaming metrics."""
from __future__ import annotations

from .. import api, array_ops
from ..math_ops import convert_to_tensor
from ..nn import functions as nn
from ..unsupported import unsupported
from . import losses
from .backend import floatx

__all__ = [
    "MAE", "MSE", "binary_accuracy", "binary_crossentropy", "categorical_accuracy",
    "categorical_crossentropy", "hinge", "mae", "mean_absolute_error", "mean_squared_error",
    "mse", "sparse_categorical_accuracy", "sparse_categorical_crossentropy",
    "sparse_top_k_categorical_accuracy", "squared_hinge", "top_k_categorical_accuracy",
]


# the losses that are metrics too, under the same names
MAE, MSE, mae, mse = losses.MAE, losses.MSE, losses.mae, losses.mse
mean_absolute_error, mean_squared_error = losses.mean_absolute_error, losses.mean_squared_error
hinge, squared_hinge = losses.hinge, losses.squared_hinge
binary_crossentropy = losses.binary_crossentropy
categorical_crossentropy = losses.categorical_crossentropy
sparse_categorical_crossentropy = losses.sparse_categorical_crossentropy


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """``mean(y_true == (y_pred > threshold), axis=-1)``."""
    y_pred = convert_to_tensor(y_pred)
    predicted = api.cast(y_pred > api.cast(threshold, y_pred.dtype), y_pred.dtype)
    right = api.equal(api.cast(convert_to_tensor(y_true), y_pred.dtype), predicted)
    return api.reduce_mean(api.cast(right, floatx()), axis=-1)


def categorical_accuracy(y_true, y_pred):
    """1.0 where ``argmax(y_true, -1) == argmax(y_pred, -1)`` (one-hot labels)."""
    right = api.equal(api.argmax(convert_to_tensor(y_true), axis=-1),
                      api.argmax(convert_to_tensor(y_pred), axis=-1))
    return api.cast(right, floatx())


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the label ``y_true`` is ``argmax(y_pred, -1)``; labels of shape ``(n, 1)``
    are squeezed to ``(n,)`` when ``y_pred`` has their rank."""
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    true_rank, pred_rank = y_true.get_shape().ndims, y_pred.get_shape().ndims
    if true_rank is not None and pred_rank is not None and true_rank == pred_rank:
        y_true = array_ops.squeeze(y_true, [-1])
    predicted = api.argmax(y_pred, axis=-1)
    if predicted.dtype != y_true.dtype:
        predicted = api.cast(predicted, y_true.dtype)
    return api.cast(api.equal(y_true, predicted), floatx())


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the one-hot label's class is among ``y_pred``'s ``k`` largest."""
    labels = api.argmax(convert_to_tensor(y_true), axis=-1)
    return api.cast(nn.in_top_k(convert_to_tensor(y_pred), labels, k), floatx())


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the label is among ``y_pred``'s ``k`` largest (``y_pred`` flattened to
    ``(-1, classes)``, ``y_true`` to a vector, when their ranks are known)."""
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    true_rank, pred_rank = y_true.get_shape().ndims, y_pred.get_shape().ndims
    if true_rank is not None and pred_rank is not None:
        if pred_rank > 2:
            y_pred = array_ops.reshape(y_pred, [-1, y_pred.get_shape()[-1]])
        if true_rank > 1:
            y_true = array_ops.reshape(y_true, [-1])
    return api.cast(nn.in_top_k(y_pred, api.cast(y_true, "int32"), k), floatx())


def __getattr__(name):
    raise unsupported("tf.keras.metrics.", "tinyflow.keras.metrics", name,
                      {"tf.keras.metrics.": __all__})


def __dir__():
    return sorted(__all__)
