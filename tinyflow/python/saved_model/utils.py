"""``tensorflow.python.saved_model.utils``: TinyFlow's objects of the names TensorFlow's module holds
(tinyflow/python/tf_modules.txt)."""
from ..reexport import reexport

__getattr__, __dir__ = reexport(__name__)
