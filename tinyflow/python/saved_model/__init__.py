"""``tensorflow.python.saved_model`` as ``tinyflow.python.saved_model``: ``builder``, ``loader``, ``signature_constants``, ``signature_def_utils``, ``tag_constants``, ``utils``."""
