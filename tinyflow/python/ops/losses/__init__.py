"""``tensorflow.python.ops.losses`` as ``tinyflow.python.ops.losses``: ``losses``."""
