"""``tensorflow.python.summary`` as ``tinyflow.python.summary``: ``summary``."""
