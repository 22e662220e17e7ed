"""``tf.keras`` for TF-1 graph-mode programs, as TensorFlow 1.15 has it: layer objects called
on tensors inside a ``tf.Session`` program, and the modules they use.

- :mod:`.layers` (``tf.keras.layers``), :mod:`.models` (``Input``, ``Model``,
  ``Sequential``), :mod:`.backend`, :mod:`.activations`, :mod:`.initializers`,
  :mod:`.regularizers`, :mod:`.losses`, :mod:`.metrics` (its functions).
- Training: ``compile`` / ``fit`` / ``evaluate`` / ``predict`` (:mod:`.training`,
  :mod:`.training_loop`), :mod:`.optimizers` (Keras' own, whose arguments and defaults differ
  from ``tf.train``'s), :mod:`.callbacks`, :mod:`.utils` (``to_categorical``, ``normalize``,
  ``get_file``).
- :mod:`.datasets` (TF's data sets, downloaded by :func:`.data_utils.get_file`) and
  :mod:`.preprocessing` (``sequence``, ``text``).
- The other Keras names are not supported: an AttributeError (or for a model's methods,
  NotImplementedError) says so.
"""
from __future__ import annotations

from ..unsupported import unsupported
from . import (
    activations,
    backend,
    callbacks,
    datasets,
    initializers,
    layers,
    losses,
    metrics,
    models,
    optimizers,
    preprocessing,
    regularizers,
    utils,
)
from .models import Input, Model, Sequential

__all__ = [
    "Input", "Model", "Sequential", "activations", "backend", "callbacks", "datasets",
    "initializers", "layers", "losses", "metrics", "models", "optimizers", "preprocessing",
    "regularizers", "utils",
]


def __getattr__(name):
    raise unsupported("tf.keras.", "tinyflow.keras", name, {
        "tf.keras.": __all__, "tf.keras.layers.": layers.__all__,
        "tf.keras.losses.": losses.__all__, "tf.keras.metrics.": metrics.__all__,
        "tf.keras.activations.": activations.__all__})


def __dir__():
    return sorted(__all__)
