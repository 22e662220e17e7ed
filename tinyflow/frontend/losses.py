"""``tf.losses``: TensorFlow 1.15's public names of the module and nothing else (their code is
:mod:`.loss_functions`); any other name is an AttributeError saying TinyFlow does not support
it."""
from .loss_functions import (
    Reduction,
    absolute_difference,
    add_loss,
    compute_weighted_loss,
    cosine_distance,
    get_losses,
    get_regularization_loss,
    get_regularization_losses,
    get_total_loss,
    hinge_loss,
    huber_loss,
    log_loss,
    mean_pairwise_squared_error,
    mean_squared_error,
    sigmoid_cross_entropy,
    softmax_cross_entropy,
    sparse_softmax_cross_entropy,
)
from .unsupported import unsupported as _unsupported

__all__ = [
    "Reduction",
    "absolute_difference",
    "add_loss",
    "compute_weighted_loss",
    "cosine_distance",
    "get_losses",
    "get_regularization_loss",
    "get_regularization_losses",
    "get_total_loss",
    "hinge_loss",
    "huber_loss",
    "log_loss",
    "mean_pairwise_squared_error",
    "mean_squared_error",
    "sigmoid_cross_entropy",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
]


def __getattr__(name):
    raise _unsupported("tf.losses.", "tinyflow.losses", name, {"tf.losses.": __all__})


def __dir__():
    return sorted(__all__)
