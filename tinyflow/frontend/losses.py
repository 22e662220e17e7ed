"""``tf.losses``: TensorFlow 1.15's public names of the module and nothing else (their code is
:mod:`.loss_functions`, whose ``__all__`` they are); any other name is an AttributeError saying
TinyFlow does not support it."""
from .loss_functions import *  # exactly loss_functions.__all__
from .loss_functions import __all__
from .unsupported import unsupported as _unsupported


def __getattr__(name):
    raise _unsupported("tf.losses.", "tinyflow.losses", name, {"tf.losses.": __all__})


def __dir__():
    return sorted(__all__)
