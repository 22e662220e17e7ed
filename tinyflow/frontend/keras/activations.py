"""``tf.keras.activations`` as TensorFlow 1.15 has them (Keras' backend's formulas), and
:func:`get`, which layers use to read ``activation="relu"``."""
from __future__ import annotations

from .. import api
from ..nn import functions as nn
from ..unsupported import unsupported

__all__ = [
    "deserialize", "elu", "exponential", "get", "hard_sigmoid", "linear", "relu", "selu",
    "serialize", "sigmoid", "softmax", "softplus", "softsign", "tanh",
]


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x), axis)``."""
    return nn.softmax(x, axis=axis)


def elu(x, alpha=1.0):
    """``x`` where > 0, else ``alpha * (exp(x) - 1)``."""
    result = nn.elu(x)
    return result if alpha == 1 else api.where(api.greater(x, 0.0), result, result * alpha)


def relu(x, alpha=0.0, max_value=None, threshold=0):
    """Keras' relu: ``x`` above ``threshold`` (else ``alpha * (x - threshold)``), clipped
    at ``max_value``."""
    if alpha != 0.0 and max_value is None and threshold == 0:
        return nn.leaky_relu(x, alpha=alpha)
    if alpha != 0.0:
        negative = nn.relu(threshold - x) if threshold != 0 else nn.relu(-x)
    clip = max_value is not None
    if threshold != 0:  # x where x > threshold, else 0
        x = x * api.cast(api.greater(x, float(threshold)), x.dtype)
    elif max_value == 6:
        x, clip = nn.relu6(x), False
    else:
        x = nn.relu(x)
    if clip:
        x = api.clip_by_value(x, 0.0, float(max_value))
    return x - negative * float(alpha) if alpha != 0.0 else x


def selu(x):
    return nn.selu(x)


def softplus(x):
    return nn.softplus(x)


def softsign(x):
    return nn.softsign(x)


def tanh(x):
    return nn.tanh(x)


def sigmoid(x):
    return nn.sigmoid(x)


def exponential(x):
    return api.exp(x)


def hard_sigmoid(x):
    """``clip(0.2 * x + 0.5, 0, 1)``."""
    return api.clip_by_value(x * 0.2 + 0.5, 0.0, 1.0)


def linear(x):
    return x


def serialize(activation) -> str:
    """The name of one of these functions."""
    if getattr(activation, "__module__", None) == __name__:
        return activation.__name__
    raise ValueError(f"Unknown activation function: {activation!r}")


def deserialize(name, custom_objects=None):
    """The function named ``name`` (or ``custom_objects[name]``)."""
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if name in __all__ and name not in ("deserialize", "get", "serialize"):
        return globals()[name]
    raise ValueError(f"Unknown activation function: {name!r}")


def get(identifier):
    """``identifier`` if callable, :func:`linear` for None, else :func:`deserialize`'s."""
    if identifier is None:
        return linear
    if callable(identifier):
        return identifier
    if isinstance(identifier, str):
        return deserialize(identifier)
    raise ValueError(f"Could not interpret activation function identifier: {identifier!r}")


def __getattr__(name):
    raise unsupported("tf.keras.activations.", "tinyflow.keras.activations", name,
                      {"tf.keras.activations.": __all__})


def __dir__():
    return sorted(__all__)
