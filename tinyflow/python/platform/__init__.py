"""``tensorflow.python.platform`` as ``tinyflow.python.platform``: ``gfile``, ``tf_logging``."""
