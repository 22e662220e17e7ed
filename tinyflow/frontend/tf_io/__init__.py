"""``tf.io``: of TensorFlow 1.15's ``tf.io`` TinyFlow has ``gfile`` (the file API in lower
case, :mod:`tinyflow.io.gfile`) and ``decode_raw``; any other ``tf.io.X`` is an AttributeError
saying TinyFlow does not support it."""
from ..readers import decode_raw
from ..unsupported import unsupported
from . import gfile

__all__ = ["decode_raw", "gfile"]


def __getattr__(name):
    raise unsupported("tf.io.", "tinyflow.io", name, {"tf.io.": __all__})
