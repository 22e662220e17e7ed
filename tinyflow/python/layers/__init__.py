"""``tensorflow.python.layers`` as ``tinyflow.python.layers``: ``core``, ``layers``."""
