"""``tf.keras.initializers`` as TensorFlow 1.15 has them: ``tf.initializers``' classes, the
random ones with Keras' defaults (``RandomNormal(0, 0.05)``, ``RandomUniform(-0.05, 0.05)``,
``TruncatedNormal(0, 0.05)``), the snake-case names, and :func:`get` for
``kernel_initializer="he_normal"``."""
from __future__ import annotations

from .. import init_ops
from ..init_ops import (
    Constant,
    GlorotNormal,
    GlorotUniform,
    Identity,
    Initializer,
    Ones,
    Orthogonal,
    VarianceScaling,
    Zeros,
    he_normal,
    he_uniform,
    lecun_normal,
    lecun_uniform,
)
from ..unsupported import unsupported

__all__ = [
    "Constant", "GlorotNormal", "GlorotUniform", "Identity", "Initializer", "Ones",
    "Orthogonal", "RandomNormal", "RandomUniform", "TruncatedNormal", "VarianceScaling",
    "Zeros", "constant", "deserialize", "get", "glorot_normal", "glorot_uniform", "he_normal",
    "he_uniform", "identity", "lecun_normal", "lecun_uniform", "normal", "ones", "orthogonal",
    "random_normal", "random_uniform", "serialize", "truncated_normal", "uniform", "zeros",
]


class RandomNormal(init_ops.RandomNormal):
    """N(mean, stddev**2), Keras' default ``stddev=0.05``."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype="float32") -> None:
        super().__init__(mean, stddev, seed, dtype)


class RandomUniform(init_ops.RandomUniform):
    """U(minval, maxval), Keras' default ``(-0.05, 0.05)``."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None, dtype="float32") -> None:
        super().__init__(minval, maxval, seed, dtype)


class TruncatedNormal(init_ops.TruncatedNormal):
    """N(mean, stddev**2) redrawn beyond two deviations, Keras' default ``stddev=0.05``."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype="float32") -> None:
        super().__init__(mean, stddev, seed, dtype)


zeros, ones, constant, identity, orthogonal = Zeros, Ones, Constant, Identity, Orthogonal
glorot_uniform, glorot_normal = GlorotUniform, GlorotNormal
normal = random_normal = RandomNormal
uniform = random_uniform = RandomUniform
truncated_normal = TruncatedNormal

# the names get() reads (Keras' class names and snake-case ones)
_BY_NAME = {name: globals()[name] for name in __all__
            if name not in ("deserialize", "get", "serialize", "Initializer")}


def serialize(initializer) -> dict:
    return {"class_name": type(initializer).__name__, "config": initializer.get_config()}


def deserialize(config, custom_objects=None):
    """An initializer from ``{"class_name": ..., "config": {...}}`` or a name."""
    if isinstance(config, str):
        config = {"class_name": config, "config": {}}
    name = config["class_name"]
    made = (custom_objects or {}).get(name) or _BY_NAME.get(name)
    if made is None:
        raise ValueError(f"Unknown initializer: {name}")
    return made(**config.get("config", {}))


def get(identifier):
    """None, an initializer, a name (``"glorot_uniform"``) or a serialized dict."""
    if identifier is None or callable(identifier) and not isinstance(identifier, type):
        return identifier
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if isinstance(identifier, type):
        return identifier()
    raise ValueError(f"Could not interpret initializer identifier: {identifier!r}")


def __getattr__(name):
    raise unsupported("tf.keras.initializers.", "tinyflow.keras.initializers", name,
                      {"tf.keras.initializers.": __all__})


def __dir__():
    return sorted(__all__)
