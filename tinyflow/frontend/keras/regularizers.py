"""``tf.keras.regularizers`` as TensorFlow 1.15 has them: ``L1L2(l1, l2)(x) = l1 *
sum(|x|) + l2 * sum(x**2)``, and ``l1``, ``l2``, ``l1_l2`` making one.  A layer given one adds
its loss to the layer's ``.losses`` (TF 1.15's Keras layers do not add it to
``tf.GraphKeys.REGULARIZATION_LOSSES``; ``tf.layers``' do)."""
from __future__ import annotations

from .. import api
from ..unsupported import unsupported

__all__ = ["L1L2", "Regularizer", "deserialize", "get", "l1", "l1_l2", "l2", "serialize"]


class Regularizer:
    """The base of regularizers: ``regularizer(x)`` is a scalar loss."""

    def __call__(self, x):
        return api.constant(0.0)

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x**2)`` (the terms whose factor is 0 left out)."""

    def __init__(self, l1=0.0, l2=0.0) -> None:
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, x):
        loss = api.constant(0.0)
        if self.l1:
            loss = loss + api.reduce_sum(api.abs(x)) * self.l1
        if self.l2:
            loss = loss + api.reduce_sum(api.square(x)) * self.l2
        return loss

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


def l1(l=0.01) -> L1L2:
    return L1L2(l1=l)


def l2(l=0.01) -> L1L2:
    return L1L2(l2=l)


def l1_l2(l1=0.01, l2=0.01) -> L1L2:
    return L1L2(l1=l1, l2=l2)


def serialize(regularizer) -> dict:
    return {"class_name": type(regularizer).__name__, "config": regularizer.get_config()}


def deserialize(config, custom_objects=None):
    """A regularizer from ``{"class_name": "L1L2", "config": {...}}`` or a name (``"l2"``)."""
    if isinstance(config, str):
        made = {"l1": l1, "l2": l2, "l1_l2": l1_l2}.get(config)
        if made is None:
            raise ValueError(f"Unknown regularizer: {config}")
        return made()
    name = config["class_name"]
    made = (custom_objects or {}).get(name) or {"L1L2": L1L2}.get(name)
    if made is None:
        raise ValueError(f"Unknown regularizer: {name}")
    return made(**config.get("config", {}))


def get(identifier):
    """None, a callable, a name or a serialized dict."""
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    raise ValueError(f"Could not interpret regularizer identifier: {identifier!r}")


def __getattr__(name):
    raise unsupported("tf.keras.regularizers.", "tinyflow.keras.regularizers", name,
                      {"tf.keras.regularizers.": __all__})


def __dir__():
    return sorted(__all__)
