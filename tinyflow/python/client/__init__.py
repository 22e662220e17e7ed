"""``tensorflow.python.client`` as ``tinyflow.python.client``: ``session``."""
