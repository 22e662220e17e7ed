"""``tf.compat``: ``tf.compat.v1`` is TinyFlow's TF-1 surface itself, as in TensorFlow 1.15
(``import tinyflow.compat.v1 as tf``)."""
from . import v1

__all__ = ["v1"]
