"""``import tinyflow.compat.v1 as tf``: the same TF-1 surface as ``import tinyflow as tf``
(TensorFlow 1.15's ``tf.compat.v1`` is ``tf``), so programs written for TensorFlow 2's
``tf.compat.v1`` with ``tf.disable_v2_behavior()`` run unchanged: every name is tinyflow's.
"""
import tinyflow


def __getattr__(name):
    return getattr(tinyflow, name)


def __dir__():
    return dir(tinyflow)
