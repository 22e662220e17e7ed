"""``tf.manip``: TensorFlow 1.15's module of the tensor manipulations, the same functions as
``tf.*``'s; any other ``tf.manip.X`` is an AttributeError saying TinyFlow does not support it."""
from .array_manip_ops import batch_to_space_nd, roll, space_to_batch_nd
from .array_ops import reshape, reverse, tile
from .indexing_ops import gather_nd, scatter_nd
from .unsupported import unsupported

__all__ = ["batch_to_space_nd", "gather_nd", "reshape", "reverse", "roll", "scatter_nd",
           "space_to_batch_nd", "tile"]


def __getattr__(name):
    raise unsupported("tf.manip.", "tinyflow.manip", name, {"tf.manip.": __all__})
