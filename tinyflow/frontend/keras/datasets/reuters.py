"""``tf.keras.datasets.reuters``: Reuters' newswires (:mod:`.sequences`)."""
from .sequences import get_reuters_word_index as get_word_index
from .sequences import load_reuters as load_data

__all__ = ["get_word_index", "load_data"]
